// Evicting running jobs to make room for a pending one: shared by reclaim
// and preempt, which differ only in who may be a victim.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "scheduler-core/session.h"
#include "scheduler-core/victim_ranks.h"

namespace vtenant::sched {

// Running jobs (groups with pods that ran before this cycle and still hold
// resources) that may be evicted at all: preemptible and past `min_runtime`
// of their queue (-1: never). Built once per action, per leaf queue, each
// queue's jobs in the session's VictimOrder (as `ranks` has them); jobs
// evicted along the way are dropped, so it never needs rebuilding.
class VictimPool {
 public:
  VictimPool(const Session& session, const VictimRanks& ranks,
             const std::vector<int64_t>& min_runtime_s);

  // Jobs of a leaf queue, some possibly gone (check Alive). Evicted jobs
  // are dropped from the list once they are half of it, so walking it stays
  // proportional to the jobs left without rewriting it for every eviction.
  const std::vector<GroupId>& InQueue(QueueId q) const { return by_queue_[q]; }
  bool Alive(GroupId g) const { return alive_[g]; }
  // Leaf queue q still has a job in the pool.
  bool HasJobs(QueueId q) const { return alive_in_queue_[q] > 0; }
  // Some leaf queue other than q had victims when the pool was built.
  bool AnyOutside(QueueId q) const { return queues_with_jobs_ - (had_jobs_[q] ? 1 : 0) > 0; }
  // Of a job that was in the pool: the GPU of its running pods when the
  // pool was built.
  Milli Gpu(GroupId g) const { return gpu_[g]; }
  // Of a job in the pool (Alive): the GPU of all its placed pods now
  // (running or placed this cycle), and the node they are on (kNone: more
  // than one node, or none).
  Milli PlacedGpu(GroupId g) const { return info_[g].placed_gpu; }
  NodeId OnlyNode(GroupId g) const { return info_[g].only_node; }
  // Of a job that was in the pool: its leaf queue and priority, kept beside
  // the numbers above so a walk over victims reads one place per victim.
  QueueId Queue(GroupId g) const { return info_[g].queue; }
  int32_t Priority(GroupId g) const { return info_[g].priority; }
  // Where job g is in `jobs`, a list of this pool's jobs in its order
  // (InQueue's, some left out), or jobs.end() when it is not there. Found by
  // binary search on each job's place in its queue when the pool was built,
  // which never changes.
  std::vector<GroupId>::iterator FindIn(std::vector<GroupId>& jobs, GroupId g) const {
    return jobs.begin() + static_cast<std::ptrdiff_t>(IndexIn(jobs, g));
  }
  // The same as an index into `jobs` (jobs.size(): not there).
  size_t IndexIn(std::span<const GroupId> jobs, GroupId g) const {
    auto it = std::lower_bound(jobs.begin(), jobs.end(), g,
                               [this](GroupId a, GroupId b) { return rank_[a] < rank_[b]; });
    return it != jobs.end() && *it == g ? static_cast<size_t>(it - jobs.begin()) : jobs.size();
  }
  // No job of leaf queue q holds less GPU than this (PlacedGpu only grows).
  Milli LeastGpuInQueue(QueueId q) const { return least_gpu_[q]; }
  // Re-reads PlacedGpu and OnlyNode of a job whose pods were placed since
  // (nothing for a job not in the pool).
  void Refresh(const Session& session, GroupId g);
  // The most GPU any one node would have free if all of `candidates` left
  // it (the pool's jobs, placed as PlacedGpu and OnlyNode say). Linear in the
  // candidates' pods, not in the cluster.
  Milli MostFreeWithout(const Session& session, std::span<const GroupId> candidates);
  // Running jobs of leaf queue q left out: within the minimum runtime, or
  // not preemptible. Only for pending reasons.
  int32_t WithinMinRuntime(QueueId q) const { return within_min_runtime_[q]; }
  int32_t NonPreemptible(QueueId q) const { return non_preemptible_[q]; }

  // Drops the jobs whose pods the statement evicted after `mark`.
  void DropEvictedSince(const Statement& statement, Statement::Checkpoint mark);
  // Jobs of leaf queue q that left the pool or whose PlacedGpu / OnlyNode
  // changed since it was built, in that order (a job may repeat): what a
  // caller keeping copies of those facts must re-read.
  const std::vector<GroupId>& ChangedIn(QueueId q) const { return changed_[q]; }

 private:
  std::vector<std::vector<GroupId>> by_queue_;
  std::vector<int32_t> alive_in_queue_;
  std::vector<uint8_t> alive_;
  // Per group, but written and read only for the jobs that were in the
  // pool (alive_ says which): left uninitialized for the others, since
  // clearing them cost as much as the rest of building the pool.
  std::unique_ptr<Milli[]> gpu_;
  struct Info {
    Milli placed_gpu;
    NodeId only_node;
    QueueId queue;
    int32_t priority;
  };
  std::unique_ptr<Info[]> info_;
  std::unique_ptr<uint32_t[]> rank_;
  std::vector<Milli> least_gpu_;
  std::vector<uint8_t> had_jobs_;
  std::vector<std::vector<GroupId>> changed_;
  // Scratch of MostFreeWithout: a node's GPU free with the candidates so far
  // gone, valid only where `call` is the current call's number.
  struct NodeSum {
    Milli gpu = 0;
    uint32_t call = 0;
  };
  std::vector<NodeSum> node_sum_;
  uint32_t most_free_calls_ = 0;
  std::vector<int32_t> within_min_runtime_;
  std::vector<int32_t> non_preemptible_;
  int queues_with_jobs_ = 0;
};

// Evicts `ranked` victims (most preferred first), each only while it is in
// the pool and `may_take_from` (when given) allows its leaf queue at that
// moment, until `job` can be allocated. `may_take_from` may read the
// cluster (it is asked again after every eviction) but nothing else that
// changes meanwhile.
// A job one GPU-sharing pod short first gets the single smallest victim of
// the first victim queue that has one whose eviction alone lets that pod
// fit on one of the victim's nodes. Otherwise a job
// at most one pod short takes victims as KAI's by-node scenarios do: in
// rank order, each added victim's nodes tried with the victims so far on
// them, so the first victims in rank order that make room on one node go
// (the lowest priority first, of one priority the newest, gangs whole). A
// job short by more takes them node by node (nodes that would free the
// most GPU first, within a node in rank order), since victims scattered
// over the cluster free no single node. Then keeps only the victims on the
// nodes the job landed on, so nobody is evicted for nothing. On success the evictions and the job's
// placements stay in the statement, the evicted jobs leave `pool` and the session's failure caches
// are dropped (the room they describe has changed); otherwise everything is rolled back.
//
// `facts`, when given, holds pool.PlacedGpu and pool.OnlyNode of each of
// `ranked` (same index), all of one leaf queue: read in order instead of
// from the pool, since a single-victim search walks up to 256 of them for
// every job. `least_gpu_from[i]`, when not empty, is the least placed_gpu
// of ranked[i .. kMaxSingleVictims) (the part the search looks at): the
// search stops once nobody left holds less than its best.
// How many of `ranked` the single-victim search looks at, at most.
constexpr size_t kMaxSingleVictims = 256;
struct RankedFacts {
  std::span<const Milli> placed_gpu;
  std::span<const NodeId> only_node;
  std::span<const Milli> least_gpu_from;
};
bool EvictForJob(Session& session, VictimPool& pool, GroupId job, std::span<const GroupId> ranked,
                 EvictionCause cause, const std::function<bool(QueueId)>& may_take_from,
                 const RankedFacts* facts = nullptr);

// Whether all of `victims` leaving could let `job` be tried at all: some
// node would then have the job's first pod's minimum GPU free (always, when
// that is 0 or the job waits on a queue limit). EvictForJob fails at once
// otherwise; this asks it of a list in any order, without ranking it.
bool VictimsMayMakeRoom(Session& session, VictimPool& pool, GroupId job,
                        std::span<const GroupId> victims);

// The resources the job's gang minimum needs (estimated), or its first
// pending pod's when the gang is already satisfied.
ResourceVector GangNeed(const Session& session, GroupId job);

// What a walk over unsatisfied jobs asks of each: GangNeed, the shape of
// FirstPendingPod (kNone: no pod pending) and GangShortfall, from one pass
// over the job's packed pending pods instead of one per question (each a
// cache miss on a job the walk meets once).
struct JobNeed {
  ResourceVector need;
  ShapeId first_shape = kNone;
  int32_t shortfall = 0;
};
JobNeed JobNeedOf(const Session& session, GroupId job);

}  // namespace vtenant::sched

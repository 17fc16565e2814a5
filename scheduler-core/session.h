// Everything one scheduling cycle works with: the snapshot, the mutable
// state and its statement, fair shares, and what each job ran into.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "scheduler-core/cluster_state.h"
#include "scheduler-core/model.h"
#include "scheduler-core/options.h"
#include "scheduler-core/order_rules.h"
#include "scheduler-core/pending_notes.h"
#include "scheduler-core/placement.h"
#include "scheduler-core/statement.h"

namespace vtenant::sched {

class VictimRanks;  // victim_ranks.h

struct ReclaimLeft;  // reclaim_left.h

// What stopped a job, kept as data; pending_reasons turns it into text.
enum class JobBlock : uint8_t {
  kNone,
  kQueueLimit,           // a queue on its path would exceed spec.resources.<r>.limit
  kNonPreemptibleQuota,  // non-preemptible jobs may only use quota
  kNoNode,               // a pod of the job fits no node
  kGangPartial,          // some pods fit, not minMember of them together
  kTopology,             // no domain of a required topology level holds the pods
};

struct JobOutcome {
  JobOutcome() = default;
  // kQueueLimit / kNonPreemptibleQuota, with the numbers.
  JobOutcome(JobBlock block, QueueId queue, Resource resource, int64_t held, int64_t asked,
             int64_t cap)
      : block(block), resource(resource), queue(queue), held(held), asked(asked), cap(cap) {}

  // The fields every job's reason reads first come first, and the numbers
  // of a budget refusal last: 48 bytes a job, and the first ones within
  // one cache line for most jobs (the array has one entry per group).
  JobBlock block = JobBlock::kNone;
  // kQueueLimit / kNonPreemptibleQuota: which resource of which queue
  // refused; its numbers are held, asked and cap below. A bit-field, so
  // that it shares the block's word and `level` fits in the 48 bytes.
  Resource resource : 8 = kGpu;
  // kTopology: the required level no domain of which could hold the pods.
  StringId level = kNoString;
  QueueId queue = kNone;
  // kNoNode / kGangPartial: the pod that found no node, how many fit first,
  // and how many pods the job needs placed. kTopology: `needed` is how many
  // pods had to share a domain and `failing_pod` the first of them.
  PodId failing_pod = kNone;
  int32_t placed_before_failure = 0;
  int32_t needed = 0;
  int64_t held = 0;
  int64_t asked = 0;
  int64_t cap = 0;
};
static_assert(sizeof(JobOutcome) == 48);

// What FitsQueueBudget checks on each queue's path, fixed for the cycle.
enum PathBudget : uint8_t {
  kPathHasLimit = 1,  // some queue on the path limits some resource
  kPathHasQuota = 2,  // some queue on the path has a quota other than -1
};
// Per queue of `snapshot`, its PathBudget bits (job_allocation.cc).
std::vector<uint8_t> QueuePathBudgets(const Snapshot& snapshot);

// One cycle's working set. The actions change it in turn through
// `statement`; nothing in it is safe to use from two threads at once.
struct Session {
  // Packs what the actions read of `snapshot` and works out fair shares
  // and min runtimes. `snapshot` must be Finalized, pass Validate and
  // outlive the session; `options` is copied.
  Session(const Snapshot& snapshot, const Options& options);

  const Snapshot& snapshot;
  Options options;
  Rules rules;  // options.rules with the defaults filled in
  ClusterState state;
  Statement statement;
  Placer placer;

  std::vector<ResourceVector> requested;       // subtree: placed plus pending
  std::vector<ResourceVector> fair_share;      // per queue
  std::vector<int64_t> reclaim_min_runtime_s;  // resolved through parents
  std::vector<int64_t> preempt_min_runtime_s;
  // Per pod: what it is expected to use before it is placed. That follows
  // from the pod's request alone, and pods of one shape have equal requests
  // (shapes are told apart by ShapeKey, which holds the request; model.h),
  // so it is kept per shape: estimated[p] reads pod_shape[p] and a table
  // with one entry per shape, where an array per pod would be written for
  // every pod of the snapshot each cycle.
  class PodEstimates {
   public:
    PodEstimates() = default;
    PodEstimates(const std::vector<ShapeId>& pod_shape, std::vector<ResourceVector> by_shape)
        : pod_shape_(&pod_shape), by_shape_(std::move(by_shape)) {}
    const ResourceVector& operator[](PodId p) const { return by_shape_[(*pod_shape_)[p]]; }

   private:
    const std::vector<ShapeId>* pod_shape_ = nullptr;
    std::vector<ResourceVector> by_shape_;
  };
  std::vector<JobOutcome> outcome;  // per group
  // Per group: latest start of a running pod, or its last_start_time when
  // later (0: no pod runs).
  std::vector<int64_t> group_start;
  PendingNotes notes;  // what later actions made of a job

  // Each group's pods pending in the snapshot, in creation order, packed
  // with what the walks read of each: pending[pending_begin[g] ..
  // pending_begin[g + 1]). Every action asks every unsatisfied job for its
  // pending pods; this answers without touching the (large) Pod records,
  // and a job's pods and needs are one read, not one per pod into the
  // per-pod arrays. Subgroup minimums are not applied.
  std::vector<uint32_t> pending_begin;
  struct PendingPod {
    PodId pod;
    ShapeId shape;
    ResourceVector estimated;
  };
  std::vector<PendingPod> pending;
  std::vector<uint8_t> has_subgroups;  // per group
  // What the walks over unsatisfied jobs read of every group, packed: each
  // action asks it of tens of thousands of jobs, and the PodGroup records
  // are large and scattered (a cache miss each).
  struct JobFacts {
    QueueId queue;
    int32_t min_member;
    bool preemptible;
    bool constrained;  // it or a sub-group has a topology level (PodGroup::HasTopology)
  };
  std::vector<JobFacts> job_facts;   // per group
  std::vector<ShapeId> pod_shape;    // per pod: snapshot.pods[p].shape, packed likewise
  PodEstimates estimated;            // per pod, before placement (above)
  std::vector<GroupId> pod_group;    // per pod: snapshot.pods[p].group, packed likewise
  std::vector<uint8_t> pod_pending;  // per pod: pending in the snapshot (else running)
  // Groups whose running pods have been below minMember for at least their
  // grace (PodGroup::stale_grace_s, else options.stale_gang_grace_s), in
  // group order: found in the one pass over
  // the PodGroup records, so that EvictStaleGangs need not walk them again.
  std::vector<GroupId> stale_gangs;
  // AllocateJob's list of the job's pending pods, kept to reuse its memory.
  std::vector<PodId> allocate_pods;
  // Per queue: the budgets on its path to the root (QueuePathBudgets), so
  // that FitsQueueBudget walks only paths that have any.
  std::vector<uint8_t> path_budgets = QueuePathBudgets(snapshot);
  // The running jobs in the victim order, shared by reclaim and preempt
  // (VictimRanksOf, victim_ranks.h); empty until the first asks.
  std::shared_ptr<const VictimRanks> victim_ranks;
  // What reclaim read of the jobs it left unsatisfied, for preempt's walk
  // over them (reclaim_left.h); empty otherwise.
  std::shared_ptr<const ReclaimLeft> reclaim_left;

  // Placement failures seen at a committed state. In allocate, consumption
  // only grows, so a shape that found no node will not find one later in the
  // action; evictions end that (ForgetFailures).
  std::vector<uint8_t> shape_failed;
  std::vector<int32_t> gang_failed_at;  // per shape: smallest uniform gang size that failed
  void ForgetFailures();

  // Topology domain of every node for a level (label key): the label's
  // value id, kNone for nodes without the label. Worked out on the first
  // call per level; the reference stays valid for the session's life.
  const std::vector<uint32_t>& DomainsOf(StringId level);

 private:
  std::map<StringId, std::vector<uint32_t>> domains_;
};

}  // namespace vtenant::sched

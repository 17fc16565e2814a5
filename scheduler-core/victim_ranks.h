// The jobs an eviction may choose from, each leaf queue's in the victim
// order: worked out once per cycle and shared by reclaim and preempt.
//
// Both build a VictimPool of the running jobs past their own minimum
// runtime, and both sorted every queue's jobs by the session's VictimOrder:
// the same sort twice over tens of thousands of jobs. Here it is done once
// over every preemptible job with a running pod in the snapshot, and each
// pool keeps the ones it wants, in this order. That is the order sorting
// only those would give as long as the VictimOrder's JobFirst is a strict
// total order (the default breaks every tie by group id) and does not
// depend on what the cycle has placed or evicted (the default reads each
// job's priority, creation and start time).
//
// It also keeps what both pools read of each running job, worked out in
// the same pass over the PodGroup records: walking those records and their
// pods again for each pool was a cache miss per record and per pod. Unlike
// the order, those facts depend on the state: they are as the cluster
// stood at Mark(), and a pool re-reads the jobs the statement's journal
// names after it. So the statement must never be rolled back to before
// Mark() while the ranks are in use (the actions roll back only their own
// attempts).
#pragma once

#include <vector>

#include "scheduler-core/session.h"

namespace vtenant::sched {

class VictimRanks {
 public:
  explicit VictimRanks(const Session& session);

  // Groups with a pod running in the snapshot (preemptible or not),
  // ascending.
  const std::vector<GroupId>& Running() const { return running_; }
  // The preemptible ones among Running() of leaf queue q, in the victim
  // order.
  const std::vector<GroupId>& InQueue(QueueId q) const { return by_queue_[q]; }

  // What a VictimPool reads of a running job, as the cluster stood at
  // Mark() (RunningFactsOf).
  struct Facts {
    Milli placed_gpu;      // GPU of all its placed pods
    Milli running_gpu;     // of those, the pods running in the snapshot
    int64_t latest_start;  // latest start of those, or last_start_time when later (0: none)
    NodeId only_node;      // node of all its placed pods (kNone: several, none)
    QueueId queue;
    int32_t priority;
    bool running;  // some pod running in the snapshot is placed
    bool preemptible;
  };
  // Of Running()[i], at Mark(): still true of a job none of whose pods the
  // statement placed or evicted since.
  const std::vector<Facts>& RunningFacts() const { return facts_; }
  Statement::Checkpoint Mark() const { return mark_; }

 private:
  std::vector<GroupId> running_;
  std::vector<Facts> facts_;
  Statement::Checkpoint mark_ = 0;
  std::vector<std::vector<GroupId>> by_queue_;
};

// Facts of group g as the session's cluster stands now.
VictimRanks::Facts RunningFactsOf(const Session& session, GroupId g);

// The session's VictimRanks, worked out on the first call of the cycle.
const VictimRanks& VictimRanksOf(Session& session);

}  // namespace vtenant::sched

// A journal of the placements and evictions made in one cycle, with
// checkpoints to roll back to.
//
// Actions try things (a gang, a set of reclaim victims, a consolidation) by
// applying them to the ClusterState through the statement; if the attempt
// does not work out they roll back to the checkpoint taken before it, which
// restores the state exactly. What survives to the end of the cycle is the
// cycle's decisions.
#pragma once

#include <vector>

#include "scheduler-core/cluster_state.h"

namespace vtenant::sched {

enum class EvictionCause : uint8_t { kNone, kReclaim, kPreempt, kConsolidate, kStaleGang };

class Statement {
 public:
  explicit Statement(ClusterState& state) : state_(&state) {}

  using Checkpoint = size_t;
  Checkpoint Mark() const { return journal_.size(); }

  void Place(PodId pod, const Allocation& allocation);
  // Takes a placed pod off its node; `cause` and `by` (the group it made room
  // for, or kNone) end up in the eviction decision.
  void Evict(PodId pod, EvictionCause cause, GroupId by);

  // Undoes everything after `mark`, newest first.
  void Rollback(Checkpoint mark);

  // True when anything after `mark` took resources away from a placed pod.
  bool EvictedSince(Checkpoint mark) const;

  struct Entry {
    PodId pod;
    bool place;
    EvictionCause cause;
    GroupId by;
    Allocation previous;  // for evictions: where the pod was
  };
  const std::vector<Entry>& journal() const { return journal_; }
  ClusterState& state() { return *state_; }
  const ClusterState& state() const { return *state_; }

 private:
  ClusterState* state_;
  std::vector<Entry> journal_;
};

}  // namespace vtenant::sched

// Universe: every object a run knows about, and the working snapshot of the
// ones present now.
//
// A replay (or a long-running scheduler) sees the same nodes, queues, groups
// and pods over many cycles. Building them once, all pending, interns every
// name and gives every pod its shape a single time; each cycle then copies
// the pods present now, with their running state, into a working snapshot
// whose vectors are reused from the cycle before. Working pod ids are dense
// and differ from universe ids; UniversePod() maps them back.
//
//   VT_ASSIGN_OR_RETURN(Universe u, Universe::Create(builder));
//   const Snapshot& s = u.Working(now, present);
//   Decisions d = RunCycle(s, options);
//   PodId p = u.UniversePod(d.binds[0].pod);
#pragma once

#include <vector>

#include "base/status.h"
#include "scheduler-core/model.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::sched {

// A pod of the universe that is present in a cycle, and whether it runs.
struct PresentPod {
  PodId pod = kNone;  // universe id
  bool running = false;
  Allocation allocation;  // where it runs, when running
  int64_t start_time = 0;
};

class Universe {
 public:
  // Builds and validates the universe from `builder`'s objects; the first
  // problem is returned as Build() reports it. Pods the builder was told run
  // somewhere are taken as pending here: Working() says who runs.
  static Result<Universe> Create(const SnapshotBuilder& builder);

  const Snapshot& universe() const { return universe_; }

  // The working snapshot at `now` holding exactly `present` (universe ids,
  // each at most once, in any order; they keep universe order in the
  // snapshot), every queue and node, and the groups of the present pods.
  // The reference stays valid until the next call.
  const Snapshot& Working(int64_t now, const std::vector<PresentPod>& present);

  // The universe id of working pod `p` of the last Working() snapshot.
  PodId UniversePod(PodId p) const { return universe_pod_[p]; }

 private:
  explicit Universe(Snapshot universe);

  Snapshot universe_;
  Snapshot work_;
  std::vector<PodId> universe_pod_;      // working pod -> universe pod
  std::vector<GroupId> working_group_;   // universe group -> working group, per call
  std::vector<const PresentPod*> slot_;  // universe pod -> its entry in `present`
};

}  // namespace vtenant::sched

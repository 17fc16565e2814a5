#include "scheduler-core/actions.h"

namespace vtenant::sched {

void EvictStaleGangs(Session& session) {
  if (!session.options.evict_stale_gangs) return;
  const Snapshot& s = session.snapshot;
  for (GroupId g : session.stale_gangs) {
    const PodGroup& group = s.groups[g];
    // Still short after this cycle's allocations, and still holding GPUs.
    if (session.state.GroupPlaced(g) == 0 || session.state.GangSatisfied(g)) continue;
    for (PodId p : group.pods)
      if (session.state.IsPlaced(p)) session.statement.Evict(p, EvictionCause::kStaleGang, kNone);
  }
}

}  // namespace vtenant::sched

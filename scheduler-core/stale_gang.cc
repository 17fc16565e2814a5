#include "scheduler-core/actions.h"

namespace vtenant::sched {

void EvictStaleGangs(Session& session) {
  if (!session.options.evict_stale_gangs) return;
  const Snapshot& s = session.snapshot;
  for (GroupId g = 0; g < s.groups.size(); ++g) {
    const PodGroup& group = s.groups[g];
    if (group.stale_since < 0 || s.now - group.stale_since < session.options.stale_gang_grace_s)
      continue;
    // Still short after this cycle's allocations, and still holding GPUs.
    if (session.state.GroupPlaced(g) == 0 || session.state.GangSatisfied(g)) continue;
    for (PodId p : group.pods)
      if (session.state.IsPlaced(p)) session.statement.Evict(p, EvictionCause::kStaleGang, kNone);
  }
}

}  // namespace vtenant::sched

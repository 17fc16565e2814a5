#include <algorithm>

#include "scheduler-core/actions.h"

namespace vtenant::sched {

void HoldBackWithinPreemptionDelay(Session& session, std::vector<GroupId>& unsatisfied) {
  const Snapshot& s = session.snapshot;
  std::vector<GroupId> may_evict;
  may_evict.reserve(unsatisfied.size());
  for (GroupId job : unsatisfied) {
    const PodGroup& group = s.groups[job];
    if (group.preemption_delay_s > 0) {
      const int64_t end =
          std::max(group.creation_time, group.last_eviction_time) + group.preemption_delay_s;
      if (s.now < end) {
        session.notes.Set(job,
                          {NoteAction::kReclaim, NoteKind::kWithinPreemptionDelay, kNone, end});
        continue;
      }
    }
    may_evict.push_back(job);
  }
  unsatisfied.swap(may_evict);
}

}  // namespace vtenant::sched

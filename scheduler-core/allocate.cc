#include "scheduler-core/actions.h"
#include "scheduler-core/job_allocation.h"
#include "scheduler-core/queue_order.h"

namespace vtenant::sched {

std::vector<GroupId> Allocate(Session& session) {
  const Snapshot& s = session.snapshot;
  std::vector<GroupId> jobs;
  // The session's packed pending pods, not the (large) Pod records.
  for (GroupId g = 0; g < s.groups.size(); ++g) {
    for (uint32_t i = session.pending_begin[g]; i < session.pending_begin[g + 1]; ++i) {
      if (!session.state.IsPlaced(session.pending[i].pod)) {
        jobs.push_back(g);
        break;
      }
    }
  }
  JobOrder order(session, jobs);
  std::vector<GroupId> unsatisfied;
  for (GroupId g = order.Next(); g != kNone; g = order.Next()) {
    if (!AllocateJob(session, g, Attempt::kCommitted)) unsatisfied.push_back(g);
  }
  return unsatisfied;
}

}  // namespace vtenant::sched

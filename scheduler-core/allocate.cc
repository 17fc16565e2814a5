#include "scheduler-core/actions.h"
#include "scheduler-core/job_allocation.h"
#include "scheduler-core/queue_order.h"

namespace vtenant::sched {

std::vector<GroupId> Allocate(Session& session) {
  const Snapshot& s = session.snapshot;
  std::vector<GroupId> jobs;
  for (GroupId g = 0; g < s.groups.size(); ++g) {
    for (PodId p : s.groups[g].pods) {
      if (s.pods[p].phase == PodPhase::kPending && !session.state.IsPlaced(p)) {
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

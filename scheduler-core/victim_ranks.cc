#include "scheduler-core/victim_ranks.h"

#include <memory>

namespace vtenant::sched {

VictimRanks::VictimRanks(const Session& session) : by_queue_(session.snapshot.queues.size()) {
  const Snapshot& s = session.snapshot;
  for (GroupId g = 0; g < s.groups.size(); ++g) {
    // Fewer pending pods than pods: some pod runs.
    if (session.pending_begin[g + 1] - session.pending_begin[g] == s.groups[g].pods.size())
      continue;
    running_.push_back(g);
    if (s.groups[g].preemptible) by_queue_[s.groups[g].queue].push_back(g);
  }
  const VictimOrder& order = *session.rules.victim_order;
  for (std::vector<GroupId>& jobs : by_queue_) order.SortJobs(session, &jobs);
}

const VictimRanks& VictimRanksOf(Session& session) {
  if (!session.victim_ranks) session.victim_ranks = std::make_shared<const VictimRanks>(session);
  return *session.victim_ranks;
}

}  // namespace vtenant::sched

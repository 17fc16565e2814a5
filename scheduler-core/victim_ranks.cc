#include "scheduler-core/victim_ranks.h"

#include <algorithm>
#include <memory>

namespace vtenant::sched {

VictimRanks::Facts RunningFactsOf(const Session& session, GroupId g) {
  const Snapshot& s = session.snapshot;
  const PodGroup& group = s.groups[g];
  VictimRanks::Facts f{0, 0, 0, kNone, group.queue, group.priority, false, group.preemptible};
  bool split = false;
  for (PodId p : group.pods) {
    if (!session.state.IsPlaced(p)) continue;
    const Allocation& a = session.state.AllocationOf(p);
    const Milli gpu = session.state.Usage(p, a)[kGpu];
    f.placed_gpu += gpu;
    if (f.only_node == kNone) f.only_node = a.node;
    split = split || a.node != f.only_node;
    if (s.pods[p].phase != PodPhase::kRunning) continue;
    f.running = true;
    f.latest_start = std::max(f.latest_start, s.pods[p].start_time);
    f.running_gpu += gpu;
  }
  if (split) f.only_node = kNone;
  // The scheduler's own record of when it placed the job counts too.
  if (f.running) f.latest_start = std::max(f.latest_start, group.last_start_time);
  return f;
}

VictimRanks::VictimRanks(const Session& session)
    : mark_(session.statement.Mark()), by_queue_(session.snapshot.queues.size()) {
  const Snapshot& s = session.snapshot;
  // At most every group: reserved so that growing never copies what was
  // written (the pages past the running jobs are never touched).
  running_.reserve(s.groups.size());
  facts_.reserve(s.groups.size());
  for (GroupId g = 0; g < s.groups.size(); ++g) {
    // Fewer pending pods than pods: some pod runs.
    if (session.pending_begin[g + 1] - session.pending_begin[g] == s.groups[g].pods.size())
      continue;
    running_.push_back(g);
    facts_.push_back(RunningFactsOf(session, g));
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

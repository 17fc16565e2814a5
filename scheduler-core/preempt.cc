#include <algorithm>

#include "scheduler-core/actions.h"
#include "scheduler-core/victims.h"

namespace vtenant::sched {

void Preempt(Session& session, std::vector<GroupId>& unsatisfied) {
  const Snapshot& s = session.snapshot;
  std::vector<GroupId> still;
  std::vector<GroupId> running;
  bool stale = true;
  for (GroupId job : unsatisfied) {
    const PodGroup& group = s.groups[job];
    if (session.outcome[job].block == JobBlock::kNonPreemptibleQuota) {
      still.push_back(job);  // only non-preemptible usage counts against it
      continue;
    }
    if (stale) {
      running = RunningPreemptibleJobs(session, session.preempt_min_runtime_s);
      stale = false;
    }
    std::vector<GroupId> candidates;
    for (GroupId v : running) {
      const PodGroup& victim = s.groups[v];
      if (victim.queue == group.queue && victim.priority < group.priority && v != job)
        candidates.push_back(v);
    }
    if (candidates.empty()) {
      still.push_back(job);
      continue;
    }
    auto start = [&](GroupId g) {
      int64_t latest = 0;
      for (PodId p : s.groups[g].pods) latest = std::max(latest, s.pods[p].start_time);
      return latest;
    };
    // Lowest priority first, then the youngest.
    std::sort(candidates.begin(), candidates.end(), [&](GroupId a, GroupId b) {
      if (s.groups[a].priority != s.groups[b].priority)
        return s.groups[a].priority < s.groups[b].priority;
      if (start(a) != start(b)) return start(a) > start(b);
      return a < b;
    });
    auto eligible = [&](GroupId v) {
      for (PodId p : s.groups[v].pods)
        if (session.state.IsPlaced(p)) return true;
      return false;
    };
    if (EvictUntilJobFits(session, job, candidates, EvictionCause::kPreempt, eligible)) {
      session.ForgetFailures();
      stale = true;
    } else {
      still.push_back(job);
    }
  }
  unsatisfied.swap(still);
}

}  // namespace vtenant::sched

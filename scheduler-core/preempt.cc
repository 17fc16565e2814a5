#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "scheduler-core/actions.h"
#include "scheduler-core/job_allocation.h"
#include "scheduler-core/victims.h"

namespace vtenant::sched {

void Preempt(Session& session, std::vector<GroupId>& unsatisfied) {
  if (unsatisfied.empty()) return;
  const Snapshot& s = session.snapshot;
  VictimPool pool(session, session.preempt_min_runtime_s);
  std::set<std::tuple<QueueId, ShapeId, int32_t, int32_t>> hopeless;
  std::vector<GroupId> still;
  for (GroupId job : unsatisfied) {
    const PodGroup& group = s.groups[job];
    if (session.outcome[job].block == JobBlock::kNonPreemptibleQuota) {
      still.push_back(job);  // only non-preemptible usage counts against it
      continue;
    }
    const std::vector<PodId> pending = PendingPodsInOrder(session, job);
    const auto key =
        std::make_tuple(group.queue, pending.empty() ? kNone : s.pods[pending[0]].shape,
                        GangShortfall(session, job), group.priority);
    if (hopeless.count(key)) {
      still.push_back(job);
      continue;
    }
    std::vector<GroupId> candidates;
    for (GroupId v : pool.InQueue(group.queue))
      if (pool.Alive(v) && v != job && pool.Priority(v) < group.priority) candidates.push_back(v);
    // Younger jobs of the queue are protected by its preempt min runtime.
    const std::optional<PendingNote> young =
        pool.WithinMinRuntime(group.queue) > 0
            ? std::optional<PendingNote>(PendingNote{NoteAction::kPreempt,
                                                     NoteKind::kVictimsMinRuntime, group.queue,
                                                     session.preempt_min_runtime_s[group.queue]})
            : std::nullopt;
    if (candidates.empty()) {
      if (young) session.notes.Set(job, *young);
      hopeless.insert(key);
      still.push_back(job);
      continue;
    }
    // Already lowest priority first, then the youngest (the pool's order).
    auto eligible = [&](GroupId v) { return pool.Alive(v); };
    if (EvictForJob(session, pool, job, candidates, EvictionCause::kPreempt, eligible)) {
      session.notes.Clear(job, NoteAction::kPreempt);
      hopeless.clear();
    } else {
      if (young) session.notes.Set(job, *young);
      hopeless.insert(key);
      still.push_back(job);
    }
  }
  unsatisfied.swap(still);
}

}  // namespace vtenant::sched

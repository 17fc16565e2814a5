#include <algorithm>
#include <map>
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
  // Lower-priority victims of a queue, per (queue, priority), in the pool's
  // order: kept across jobs and pruned when the queue loses victims, instead
  // of rebuilt from the queue's whole list for every job.
  struct CandidateList {
    uint64_t version = 0;  // pool.Version of the queue it was last pruned at
    std::vector<GroupId> jobs;
  };
  std::map<std::pair<QueueId, int32_t>, CandidateList> lists;
  std::vector<GroupId> still;
  for (GroupId job : unsatisfied) {
    const PodGroup& group = s.groups[job];
    if (session.outcome[job].block == JobBlock::kNonPreemptibleQuota) {
      still.push_back(job);  // only non-preemptible usage counts against it
      continue;
    }
    const PodId first = FirstPendingPod(session, job);
    const auto key = std::make_tuple(group.queue, first == kNone ? kNone : s.pods[first].shape,
                                     GangShortfall(session, job), group.priority);
    if (hopeless.count(key)) {
      still.push_back(job);
      continue;
    }
    // The job itself is never among them: its priority is not below its own.
    CandidateList& list = lists[{group.queue, group.priority}];
    if (list.version == 0) {
      for (GroupId v : pool.InQueue(group.queue))
        if (pool.Alive(v) && pool.Priority(v) < group.priority) list.jobs.push_back(v);
    } else if (list.version != pool.Version(group.queue)) {
      // Jobs only leave the pool, and its order never changes.
      std::erase_if(list.jobs, [&](GroupId v) { return !pool.Alive(v); });
    }
    list.version = pool.Version(group.queue);
    const std::vector<GroupId>& candidates = list.jobs;
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

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "scheduler-core/actions.h"
#include "scheduler-core/job_allocation.h"
#include "scheduler-core/job_prefetch.h"
#include "scheduler-core/reclaim_left.h"
#include "scheduler-core/victims.h"
#include "scheduler-core/window_suffix_min.h"

namespace vtenant::sched {

void Preempt(Session& session, std::vector<GroupId>& unsatisfied) {
  if (unsatisfied.empty()) return;
  const Snapshot& s = session.snapshot;
  VictimPool pool(session, VictimRanksOf(session), session.preempt_min_runtime_s);
  // Lower-priority victims of a queue, per (queue, priority), in the pool's
  // order, with their GPU and node: kept across jobs and updated from the
  // pool's change log, instead of rebuilt from the queue's whole list (and
  // read from the pool's large arrays) for every job.
  // The list is the arrays' entries from `head` on. Victims are taken near
  // its front (the single-victim search looks at its first entries), so an
  // entry there is erased by moving the ones before it up by one, not the
  // thousands after it down.
  struct CandidateList {
    bool built = false;
    size_t seen = 0;  // entries of pool.ChangedIn(queue) applied
    size_t head = 0;
    std::vector<GroupId> all_jobs;
    std::vector<Milli> all_gpu;  // pool.PlacedGpu and pool.OnlyNode of each of all_jobs
    std::vector<NodeId> all_only_node;
    // Least of gpu()[i .. kMaxSingleVictims), for the single-victim search.
    WindowSuffixMin least_gpu_from{kMaxSingleVictims};
    // Jobs of this queue and priority that found no victims enough, by
    // (shape of the first pending pod, gang shortfall), until something
    // changes: valid while hopeless_round is the current round.
    uint64_t hopeless_round = 0;
    std::vector<std::pair<ShapeId, int32_t>> hopeless;

    bool Hopeless(uint64_t round, std::pair<ShapeId, int32_t> key) const {
      return hopeless_round == round &&
             std::find(hopeless.begin(), hopeless.end(), key) != hopeless.end();
    }
    void MarkHopeless(uint64_t round, std::pair<ShapeId, int32_t> key) {
      if (hopeless_round != round) hopeless.clear();
      hopeless_round = round;
      hopeless.push_back(key);
    }

    std::span<const GroupId> jobs() const { return std::span(all_jobs).subspan(head); }
    std::span<Milli> gpu() { return std::span(all_gpu).subspan(head); }
    std::span<const NodeId> only_node() const { return std::span(all_only_node).subspan(head); }
    void Erase(size_t i) {
      const size_t size = all_jobs.size() - head;
      if (i < size - i) {
        auto up = [&](auto& v) {
          std::move_backward(v.begin() + head, v.begin() + head + i, v.begin() + head + i + 1);
        };
        up(all_jobs), up(all_gpu), up(all_only_node);
        ++head;
      } else {
        all_jobs.erase(all_jobs.begin() + head + i);
        all_gpu.erase(all_gpu.begin() + head + i);
        all_only_node.erase(all_only_node.begin() + head + i);
      }
    }
  };
  // Per queue, its lists by priority (few each); a deque keeps them in place.
  std::deque<CandidateList> lists;
  std::vector<std::vector<std::pair<int32_t, CandidateList*>>> lists_of(s.queues.size());
  auto list_for = [&](QueueId queue, int32_t priority) -> CandidateList& {
    for (const auto& [p, list] : lists_of[queue])
      if (p == priority) return *list;
    lists_of[queue].emplace_back(priority, &lists.emplace_back());
    return *lists_of[queue].back().second;
  };
  // Grows with every job that gets its victims: whatever was hopeless may
  // not be any more.
  uint64_t round = 1;
  std::vector<GroupId> still;
  // What reclaim read of these very jobs, when it ran just before (one entry
  // per job, in this order): most jobs stop at the memo, so their questions
  // are most of the walk's reads.
  std::shared_ptr<const ReclaimLeft> left = std::move(session.reclaim_left);
  const std::span<const ReclaimLeft::Job> handed =
      left && left->jobs.size() == unsatisfied.size() &&
              left->journal_size == session.statement.journal().size()
          ? std::span<const ReclaimLeft::Job>(left->jobs)
          : std::span<const ReclaimLeft::Job>();
  const JobPrefetcher prefetch(session, unsatisfied);
  for (size_t u = 0; u < unsatisfied.size(); ++u) {
    const GroupId job = unsatisfied[u];
    // Still read ahead with an entry: the jobs that pass the memo read their
    // pods and placement in EvictForJob.
    prefetch.Ahead(u);
    const ReclaimLeft::Job* entry = !handed.empty() && handed[u].job == job ? &handed[u] : nullptr;
    const JobBlock block = entry ? entry->block : session.outcome[job].block;
    if (block == JobBlock::kNonPreemptibleQuota) {
      still.push_back(job);  // only non-preemptible usage counts against it
      continue;
    }
    QueueId queue;
    int32_t priority;
    std::pair<ShapeId, int32_t> key;
    if (entry && entry->exact) {
      queue = entry->queue;
      priority = entry->priority;
      key = {entry->first_shape, entry->shortfall};
    } else {
      // Read the packed facts, not the records.
      queue = session.job_facts[job].queue;
      priority = s.groups[job].priority;
      const PodId first = FirstPendingPod(session, job);
      key = {first == kNone ? kNone : session.pod_shape[first], GangShortfall(session, job)};
    }
    // The job itself is never among them: its priority is not below its own.
    CandidateList& list = list_for(queue, priority);
    if (list.Hopeless(round, key)) {
      still.push_back(job);
      continue;
    }
    const std::vector<GroupId>& changed = pool.ChangedIn(queue);
    if (!list.built) {
      for (GroupId v : pool.InQueue(queue))
        if (pool.Alive(v) && pool.Priority(v) < priority) {
          list.all_jobs.push_back(v);
          list.all_gpu.push_back(pool.PlacedGpu(v));
          list.all_only_node.push_back(pool.OnlyNode(v));
        }
      list.built = true;
      list.least_gpu_from.Reset(list.gpu());
    } else {
      // Jobs only leave the pool and its order never changes: drop the ones
      // that left, re-read the ones that changed.
      for (size_t c = list.seen; c < changed.size(); ++c) {
        const GroupId g = changed[c];
        const size_t i = pool.IndexIn(list.jobs(), g);
        if (i == list.jobs().size()) continue;
        if (!pool.Alive(g)) {
          list.Erase(i);
          list.least_gpu_from.Erased(list.gpu(), i);
        } else {
          list.gpu()[i] = pool.PlacedGpu(g);
          list.all_only_node[list.head + i] = pool.OnlyNode(g);
          list.least_gpu_from.Changed(list.gpu(), i);
        }
      }
    }
    list.seen = changed.size();
    const std::span<const GroupId> candidates = list.jobs();
    const RankedFacts facts{list.gpu(), list.only_node(), list.least_gpu_from.least()};
    // Younger jobs of the queue are protected by its preempt min runtime.
    const std::optional<PendingNote> young =
        pool.WithinMinRuntime(queue) > 0 ? std::optional<PendingNote>(PendingNote{
                                               NoteAction::kPreempt, NoteKind::kVictimsMinRuntime,
                                               queue, session.preempt_min_runtime_s[queue]})
                                         : std::nullopt;
    if (candidates.empty()) {
      if (young) session.notes.Set(job, *young);
      list.MarkHopeless(round, key);
      still.push_back(job);
      continue;
    }
    // Already lowest priority first, then the youngest (the pool's order).
    if (EvictForJob(session, pool, job, candidates, EvictionCause::kPreempt, nullptr, &facts)) {
      session.notes.Clear(job, NoteAction::kPreempt);
      ++round;
    } else {
      if (young) session.notes.Set(job, *young);
      list.MarkHopeless(round, key);
      still.push_back(job);
    }
  }
  unsatisfied.swap(still);
}

}  // namespace vtenant::sched

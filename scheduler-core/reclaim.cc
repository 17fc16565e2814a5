#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <tuple>

#include "scheduler-core/actions.h"
#include "scheduler-core/job_allocation.h"
#include "scheduler-core/job_prefetch.h"
#include "scheduler-core/reclaim_left.h"
#include "scheduler-core/victims.h"

namespace vtenant::sched {
namespace {

bool InSubtree(const Snapshot& s, QueueId q, QueueId root) {
  for (; q != kNone; q = s.queues[q].parent)
    if (q == root) return true;
  return false;
}

enum class Yardstick { kFairShare, kQuota };

int64_t Bound(const Session& session, QueueId q, Resource r, Yardstick y) {
  if (y == Yardstick::kFairShare) return session.fair_share[q][r];
  int64_t quota = session.snapshot.queues[q].resources[r].quota;
  return quota == kUnlimited ? INT64_MAX : quota;
}

// The reclaimer's path up to (and including) `top` stays within the bound
// after it gets `need`.
bool StaysWithin(const Session& session, QueueId leaf, QueueId top, const ResourceVector& need,
                 Yardstick y) {
  const Snapshot& s = session.snapshot;
  for (QueueId q = leaf;; q = s.queues[q].parent) {
    for (Resource r : kAllResources) {
      if (need[r] <= 0) continue;
      int64_t bound = Bound(session, q, r, y);
      if (bound != INT64_MAX && session.state.QueueAllocated(q)[r] + need[r] > bound) return false;
    }
    if (q == top) return true;
  }
}

// The victim's side is above the bound in a resource the reclaimer needs.
bool Above(const Session& session, QueueId q, const ResourceVector& need, Yardstick y) {
  for (Resource r : kAllResources) {
    if (need[r] <= 0) continue;
    int64_t bound = Bound(session, q, r, y);
    if (bound != INT64_MAX && session.state.QueueAllocated(q)[r] > bound) return true;
  }
  return false;
}

// KAI's two strategies: below fair share takes from above fair share; below
// quota takes from above quota. Either way the reclaimer must still be
// within the bound after taking what it needs.
bool MayReclaimFrom(const Session& session, QueueId reclaimer, QueueId victim,
                    const ResourceVector& need) {
  auto [mine, theirs] = SiblingsBelowCommonAncestor(session.snapshot, reclaimer, victim);
  for (Yardstick y : {Yardstick::kFairShare, Yardstick::kQuota}) {
    if (StaysWithin(session, reclaimer, mine, need, y) && Above(session, theirs, need, y))
      return true;
  }
  return false;
}

// StaysWithin, Above and MayReclaimFrom as the cluster stood when the
// current round began, with each queue's room worked out at most once per
// round: reclaim asks them of tens of thousands of jobs, for each of which
// they read the same queues' bounds and allocations. Within reclaim's loop
// the cluster changes only when a job gets its victims (a failed attempt
// rolls back), so a round is the stretch between two of those (NextRound).
// Not for the victims' eligibility, which is asked while an attempt's
// evictions are open.
class QueueRoom {
 public:
  explicit QueueRoom(const Session& session)
      : session_(session), rooms_(session.snapshot.queues.size()) {}

  void NextRound() { ++round_; }

  bool StaysWithin(QueueId leaf, QueueId top, const ResourceVector& need, Yardstick y) {
    const Snapshot& s = session_.snapshot;
    for (QueueId q = leaf;; q = s.queues[q].parent) {
      const Room& room = Of(q);
      for (Resource r : kAllResources)
        if (need[r] > 0 && need[r] > room.left[Index(y)][r]) return false;
      if (q == top) return true;
    }
  }

  bool Above(QueueId q, const ResourceVector& need, Yardstick y) {
    const Room& room = Of(q);
    for (Resource r : kAllResources)
      if (need[r] > 0 && (room.above[Index(y)] >> r & 1)) return true;
    return false;
  }

  bool MayReclaimFrom(QueueId reclaimer, QueueId victim, const ResourceVector& need) {
    auto [mine, theirs] = SiblingsBelowCommonAncestor(session_.snapshot, reclaimer, victim);
    for (Yardstick y : {Yardstick::kFairShare, Yardstick::kQuota}) {
      if (StaysWithin(reclaimer, mine, need, y) && Above(theirs, need, y)) return true;
    }
    return false;
  }

 private:
  struct Room {
    uint64_t round = UINT64_MAX;
    // Per yardstick: the bound less what is allocated (INT64_MAX: no
    // bound), and a bit per resource allocated above the bound.
    ResourceVector left[2];
    uint8_t above[2] = {0, 0};
  };
  static int Index(Yardstick y) { return y == Yardstick::kFairShare ? 0 : 1; }

  const Room& Of(QueueId q) {
    Room& room = rooms_[q];
    if (room.round == round_) return room;
    room.round = round_;
    for (Yardstick y : {Yardstick::kFairShare, Yardstick::kQuota}) {
      room.above[Index(y)] = 0;
      for (Resource r : kAllResources) {
        const int64_t bound = Bound(session_, q, r, y);
        const int64_t held = session_.state.QueueAllocated(q)[r];
        room.left[Index(y)][r] = bound == INT64_MAX ? INT64_MAX : bound - held;
        if (bound != INT64_MAX && held > bound) room.above[Index(y)] |= 1 << r;
      }
    }
    return room;
  }

  const Session& session_;
  std::vector<Room> rooms_;
  uint64_t round_ = 0;
};

}  // namespace

void Reclaim(Session& session, std::vector<GroupId>& unsatisfied) {
  if (unsatisfied.empty()) return;
  const Snapshot& s = session.snapshot;
  VictimPool pool(session, VictimRanksOf(session), session.reclaim_min_runtime_s);
  const VictimOrder& victim_order = *session.rules.victim_order;
  QueueRoom room(session);
  int32_t protected_total = 0;
  for (QueueId q = 0; q < s.queues.size(); ++q)
    protected_total += pool.WithinMinRuntime(q) + pool.NonPreemptible(q);
  // Jobs like one that found no victims enough, until something changes,
  // with what reclaim noted for it.
  std::map<std::tuple<QueueId, ShapeId, int32_t>, std::optional<PendingNote>> hopeless;
  // Each victim queue's jobs in the pool's order, with the sum of the
  // pool.Gpu of those still in the pool: kept across jobs and updated from
  // the pool's change log, instead of walking every queue's whole list for
  // each of the hundreds of attempts of a busy cycle. The GPU test then
  // reads one sum per queue, and only attempts that pass it copy the lists.
  // A job that left stays in its list until the list is next copied into
  // an attempt's candidates, which drops all that left in one pass:
  // erasing each at once moved the rest of a list of thousands for every
  // eviction, and an attempt evicts many.
  struct QueueVictims {
    bool built = false;
    size_t seen = 0;  // entries of pool.ChangedIn(queue) applied
    std::vector<GroupId> jobs;
    size_t left = 0;  // of jobs, how many left the pool
    GroupId last_left = kNone;
    Milli gpu = 0;
  };
  std::vector<QueueVictims> live(s.queues.size());
  // Per group: counted out of its queue's list (a job may repeat in the
  // change log, once re-read while in the pool, then once when it left).
  std::vector<uint8_t> counted_out(s.groups.size(), 0);
  uint64_t lists_changed = 0;  // jobs counted out of any of `live`, so far
  auto live_in = [&](QueueId q) -> const QueueVictims& {
    QueueVictims& v = live[q];
    const std::vector<GroupId>& changed = pool.ChangedIn(q);
    if (!v.built) {
      for (GroupId g : pool.InQueue(q))
        if (pool.Alive(g)) {
          v.jobs.push_back(g);
          v.gpu += pool.Gpu(g);
        }
      v.built = true;
    } else {
      // Jobs only leave the pool (pool.Gpu never changes) and its order
      // never changes. A job logged since the list was built was in the
      // pool then, so it is in the list.
      for (size_t c = v.seen; c < changed.size(); ++c) {
        const GroupId g = changed[c];
        if (pool.Alive(g) || counted_out[g]) continue;
        counted_out[g] = 1;
        v.gpu -= pool.Gpu(g);
        ++v.left;
        v.last_left = g;
        ++lists_changed;
      }
    }
    v.seen = changed.size();
    return v;
  };
  // The last attempt's candidates (concatenated, and ranked as far as
  // merged), the victim queues they came from and lists_changed when they
  // were put together.
  std::vector<GroupId> candidates;
  std::vector<std::span<const GroupId>> lists;  // per victim queue, into `live`
  std::unique_ptr<VictimMerger> merger;         // of `lists`
  std::vector<GroupId> ranked;                  // merged so far
  std::vector<QueueId> candidates_of;
  uint64_t candidates_at = 0;
  std::vector<GroupId> still;
  auto left = std::make_shared<ReclaimLeft>();
  left->jobs.reserve(unsatisfied.size());
  // Keeps `job` unsatisfied, with what preempt will ask of it (`facts`:
  // null when reclaim did not read them).
  auto keep = [&](GroupId job, const JobNeed* facts) {
    still.push_back(job);
    ReclaimLeft::Job& entry = left->jobs.emplace_back();
    entry.job = job;
    entry.block = session.outcome[job].block;
    entry.exact =
        facts != nullptr && !session.has_subgroups[job] && session.state.GroupPlaced(job) == 0;
    if (!entry.exact) return;
    entry.queue = session.job_facts[job].queue;
    entry.priority = s.groups[job].priority;
    entry.first_shape = facts->first_shape;
    entry.shortfall = facts->shortfall;
  };
  const JobPrefetcher prefetch(session, unsatisfied);
  for (size_t u = 0; u < unsatisfied.size(); ++u) {
    prefetch.Ahead(u);
    const GroupId job = unsatisfied[u];
    const JobOutcome& why = session.outcome[job];
    if (why.block == JobBlock::kNonPreemptibleQuota) {
      keep(job, nullptr);  // only non-preemptible usage counts against it
      continue;
    }
    const QueueId mine = session.job_facts[job].queue;
    const JobNeed facts = JobNeedOf(session, job);
    const ResourceVector& need = facts.need;
    // Without anyone else running there is nothing to say.
    const bool others_run =
        pool.AnyOutside(mine) ||
        protected_total - pool.WithinMinRuntime(mine) - pool.NonPreemptible(mine) > 0;
    // The reclaimer's own queue must stay within its share (or quota) with
    // the job: otherwise no victim anywhere is allowed.
    const bool below = room.StaysWithin(mine, mine, need, Yardstick::kFairShare) ||
                       room.StaysWithin(mine, mine, need, Yardstick::kQuota);
    if (!below || !others_run) {
      if (others_run) session.notes.Set(job, {NoteAction::kReclaim, NoteKind::kQueueAtFairShare});
      keep(job, &facts);
      continue;
    }
    const auto key = std::make_tuple(mine, facts.first_shape, facts.shortfall);
    if (auto it = hopeless.find(key); it != hopeless.end()) {
      if (it->second) session.notes.Set(job, *it->second);
      keep(job, &facts);
      continue;
    }
    // A limit on the job's path is lifted only by victims below that queue
    // (siblings under a capped parent); kNone: any victim may help.
    const QueueId capped = why.block == JobBlock::kQueueLimit ? why.queue : kNone;
    // Victim queues in the session's victim order (by default the reverse
    // of allocation's queue order); each queue's jobs in the pool's order.
    std::vector<QueueId> victim_queues;
    std::optional<PendingNote> protected_note;
    for (QueueId theirs = 0; theirs < s.queues.size(); ++theirs) {
      if (theirs == mine) continue;
      const bool evictable = pool.HasJobs(theirs);
      const int32_t young = pool.WithinMinRuntime(theirs);
      const int32_t fixed = pool.NonPreemptible(theirs);
      if (!evictable && young == 0 && fixed == 0) continue;
      if (capped != kNone && !InSubtree(s, theirs, capped)) continue;
      if (!room.MayReclaimFrom(mine, theirs, need)) continue;
      if (evictable) victim_queues.push_back(theirs);
      if (young > 0 && (!protected_note || protected_note->kind != NoteKind::kVictimsMinRuntime))
        protected_note = PendingNote{NoteAction::kReclaim, NoteKind::kVictimsMinRuntime, theirs,
                                     session.reclaim_min_runtime_s[theirs]};
      else if (fixed > 0 && !protected_note)
        protected_note =
            PendingNote{NoteAction::kReclaim, NoteKind::kVictimsNonPreemptible, theirs};
    }
    std::sort(victim_queues.begin(), victim_queues.end(),
              [&](QueueId a, QueueId b) { return victim_order.QueueFirst(session, a, b); });
    // Every victim queue has live jobs (pool.HasJobs), so there are
    // candidates exactly when there are victim queues.
    Milli victim_gpu = 0;
    for (QueueId theirs : victim_queues) victim_gpu += live_in(theirs).gpu;
    const PendingNote failed =
        protected_note.value_or(PendingNote{NoteAction::kReclaim, NoteKind::kNoVictims});
    const Milli free_gpu = session.state.FreeGpuTotal();
    if (victim_queues.empty() || (capped == kNone && victim_gpu + free_gpu < need[kGpu])) {
      session.notes.Set(job, failed);
      hopeless[key] = failed;
      keep(job, &facts);
      continue;
    }
    // The kept lists concatenated, in the victim queues' order, and merged
    // by the victim order as far as attempts read them; the same as the
    // last attempt's when its queues were these and no list changed
    // (nothing else the merge reads changes without a list changing: only
    // an attempt that evicted changes the cluster).
    if (victim_queues != candidates_of || lists_changed != candidates_at) {
      candidates.clear();
      lists.clear();
      for (QueueId theirs : victim_queues) {
        QueueVictims& v = live[theirs];
        // One gone (the common case in a busy cycle): found by its rank.
        if (v.left == 1)
          if (auto it = pool.FindIn(v.jobs, v.last_left); it != v.jobs.end()) v.jobs.erase(it);
        if (v.left > 1) std::erase_if(v.jobs, [&](GroupId g) { return !pool.Alive(g); });
        v.left = 0;
        lists.emplace_back(v.jobs);
        candidates.insert(candidates.end(), v.jobs.begin(), v.jobs.end());
      }
      merger = victim_order.Merge(session, victim_queues, lists);
      ranked.clear();
      candidates_of = victim_queues;
      candidates_at = lists_changed;
    }

    auto may_take_from = [&](QueueId theirs) {
      return MayReclaimFrom(session, mine, theirs, need);
    };
    // Merging a busy cycle's thousands of candidates for every attempt
    // cost more than the attempts: the best-ranked victims usually
    // suffice, so the rank is widened only on failure (an attempt on a
    // prefix that fails leaves the cluster as it was, so the first prefix
    // that succeeds takes what the whole rank would). A job short by more
    // than one pod gets the whole rank at once: EvictForJob widens its own
    // node-by-node search. Before the rest is ranked, whether all of them
    // could make room at all is asked of them unranked.
    bool reclaimed = false;
    const size_t first = facts.shortfall <= 1 ? 256 : candidates.size();
    for (size_t k = first;; k = k > candidates.size() / 4 ? candidates.size() : k * 4) {
      while (ranked.size() < k && merger->Next(&ranked)) {
      }
      const size_t n = std::min(k, ranked.size());
      if (EvictForJob(session, pool, job, std::span<const GroupId>(ranked).first(n),
                      EvictionCause::kReclaim, may_take_from)) {
        reclaimed = true;
        break;
      }
      if (n == candidates.size()) break;
      if (k == first && !VictimsMayMakeRoom(session, pool, job, candidates)) break;
    }
    if (reclaimed) {
      session.notes.Clear(job, NoteAction::kReclaim);
      hopeless.clear();
      room.NextRound();
    } else {
      session.notes.Set(job, failed);
      hopeless[key] = failed;
      keep(job, &facts);
    }
  }
  unsatisfied.swap(still);
  left->journal_size = session.statement.journal().size();
  session.reclaim_left = std::move(left);
}

}  // namespace vtenant::sched

#include <algorithm>
#include <set>
#include <tuple>

#include "scheduler-core/actions.h"
#include "scheduler-core/job_allocation.h"
#include "scheduler-core/victims.h"

namespace vtenant::sched {
namespace {

// The two children of the lowest common ancestor of `a` and `b` on their
// paths (or the two roots when they share none): where fairness between
// them is decided.
std::pair<QueueId, QueueId> SiblingsBelowCommonAncestor(const Snapshot& s, QueueId a, QueueId b) {
  auto depth = [&](QueueId q) {
    int d = 0;
    for (; s.queues[q].parent != kNone; q = s.queues[q].parent) ++d;
    return d;
  };
  int da = depth(a), db = depth(b);
  while (da > db) a = s.queues[a].parent, --da;
  while (db > da) b = s.queues[b].parent, --db;
  while (s.queues[a].parent != s.queues[b].parent) a = s.queues[a].parent, b = s.queues[b].parent;
  return {a, b};
}

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

}  // namespace

void Reclaim(Session& session, std::vector<GroupId>& unsatisfied) {
  if (unsatisfied.empty()) return;
  const Snapshot& s = session.snapshot;
  VictimPool pool(session, session.reclaim_min_runtime_s);
  // Jobs like one that found no victims enough, until something changes.
  std::set<std::tuple<QueueId, ShapeId, int32_t>> hopeless;
  std::vector<GroupId> still;
  for (GroupId job : unsatisfied) {
    const JobOutcome& why = session.outcome[job];
    if (why.block == JobBlock::kNonPreemptibleQuota) {
      still.push_back(job);  // only non-preemptible usage counts against it
      continue;
    }
    const QueueId mine = s.groups[job].queue;
    const ResourceVector need = GangNeed(session, job);
    const bool others_run = pool.AnyOutside(mine);  // without them, nothing to say
    // The reclaimer's own queue must stay within its share (or quota) with
    // the job: otherwise no victim anywhere is allowed.
    const bool below = StaysWithin(session, mine, mine, need, Yardstick::kFairShare) ||
                       StaysWithin(session, mine, mine, need, Yardstick::kQuota);
    if (others_run)
      session.reclaim_note[job] = below ? ReclaimNote::kNoVictims : ReclaimNote::kQueueAtFairShare;
    if (!below || !others_run) {
      still.push_back(job);
      continue;
    }
    const std::vector<PodId> pending = PendingPodsInOrder(session, job);
    const auto key = std::make_tuple(mine, pending.empty() ? kNone : s.pods[pending[0]].shape,
                                     GangShortfall(session, job));
    if (hopeless.count(key)) {
      still.push_back(job);
      continue;
    }
    // A limit on the job's path is lifted only by victims below that queue
    // (siblings under a capped parent); kNone: any victim may help.
    const QueueId capped = why.block == JobBlock::kQueueLimit ? why.queue : kNone;
    // Victim queues, most saturated first (compared where fairness between
    // them and the reclaimer is decided); each queue's jobs in the pool's
    // order (lower priority, then youngest).
    std::vector<std::pair<double, QueueId>> victim_queues;
    for (QueueId theirs = 0; theirs < s.queues.size(); ++theirs) {
      if (theirs == mine || pool.InQueue(theirs).empty()) continue;
      if (capped != kNone && !InSubtree(s, theirs, capped)) continue;
      if (!MayReclaimFrom(session, mine, theirs, need)) continue;
      auto [_, side] = SiblingsBelowCommonAncestor(s, mine, theirs);
      victim_queues.emplace_back(-session.SaturationRatio(side), theirs);
    }
    std::sort(victim_queues.begin(), victim_queues.end());
    std::vector<GroupId> candidates;
    Milli victim_gpu = 0;
    for (const auto& [_, theirs] : victim_queues) {
      for (GroupId v : pool.InQueue(theirs)) {
        if (!pool.Alive(v)) continue;
        candidates.push_back(v);
        victim_gpu += pool.Gpu(v);
      }
    }
    const Milli free_gpu = session.state.FreeGpuTotal();
    if (candidates.empty() || (capped == kNone && victim_gpu + free_gpu < need[kGpu])) {
      hopeless.insert(key);
      still.push_back(job);
      continue;
    }

    auto eligible = [&](GroupId v) {
      return pool.Alive(v) && MayReclaimFrom(session, mine, s.groups[v].queue, need);
    };
    if (EvictForJob(session, pool, job, candidates, EvictionCause::kReclaim, eligible)) {
      session.reclaim_note[job] = ReclaimNote::kNotTried;
      hopeless.clear();
    } else {
      hopeless.insert(key);
      still.push_back(job);
    }
  }
  unsatisfied.swap(still);
}

}  // namespace vtenant::sched

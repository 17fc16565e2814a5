#include "scheduler-core/queue_order.h"

#include <algorithm>

#include "scheduler-core/victims.h"

namespace vtenant::sched {

JobOrder::JobOrder(const Session& session, const std::vector<GroupId>& jobs)
    : session_(&session),
      queue_order_(session.rules.queue_order.get()),
      coarse_(queue_order_->HasCoarseOrder()),
      jobs_(session.snapshot.queues.size()),
      cursor_(session.snapshot.queues.size(), 0),
      standing_(session.snapshot.queues.size()),
      parent_(session.snapshot.queues.size()),
      is_leaf_(session.snapshot.queues.size()) {
  const Snapshot& s = session.snapshot;
  std::vector<std::vector<GroupId>> by_queue(s.queues.size());
  // Each gang's need is worked out in the order `jobs` comes in (allocate:
  // by id, so the session's per-group arrays are read in order), not in
  // rank order, which jumps between them.
  std::vector<ResourceVector> need(s.groups.size());
  for (GroupId g : jobs) {
    by_queue[session.job_facts[g].queue].push_back(g);
    need[g] = GangNeed(session, g);
  }
  const JobRank& rank = *session.rules.job_rank;
  for (QueueId q = 0; q < s.queues.size(); ++q) {
    rank.Sort(s, &by_queue[q]);
    jobs_[q].reserve(by_queue[q].size());
    for (GroupId g : by_queue[q]) jobs_[q].push_back({g, need[g]});
    if (s.queues[q].parent == kNone) roots_.push_back(q);
    parent_[q] = s.queues[q].parent;
    is_leaf_[q] = s.queues[q].children.empty();
  }
  // One level for the roots, one per parent queue's children.
  level_of_.resize(s.queues.size());
  children_of_.resize(s.queues.size());
  index_of_.resize(s.queues.size());
  auto add_level = [&](const std::vector<QueueId>& queues) {
    const auto level = static_cast<uint32_t>(levels_.size());
    levels_.push_back({&queues, Tournament(static_cast<uint32_t>(queues.size())),
                       std::vector<CoarseRank>(queues.size())});
    for (uint32_t i = 0; i < queues.size(); ++i) {
      level_of_[queues[i]] = level;
      index_of_[queues[i]] = i;
    }
    return level;
  };
  add_level(roots_);
  for (QueueId q = 0; q < s.queues.size(); ++q)
    if (!s.queues[q].children.empty()) children_of_[q] = add_level(s.queues[q].children);
  for (QueueId r : roots_) RefreshSubtree(r);
  root_best_ = Best(levels_[0]);
}

QueueId JobOrder::Best(const Level& level) const {
  const std::vector<QueueId>& queues = *level.queues;
  QueueId least = kNone;  // the first of the coarse minimum
  if (coarse_) {
    const uint32_t w = level.coarse.Winner();
    if (w == Tournament::kNone) return kNone;
    least = queues[w];
    if (!level.coarse.WinnerTied(
            [&](uint32_t a, uint32_t b) { return level.ranks[a] < level.ranks[b]; }))
      return least;
  }
  // The scan, over the coarse minimum alone when there is one.
  QueueId best = kNone;
  for (QueueId q : queues) {
    if (standing_[q].candidate == kNone) continue;
    if (least != kNone && CoarseBefore(least, q)) continue;
    if (best == kNone || KeyBefore(q, best)) best = q;
  }
  return best;
}

bool JobOrder::KeyBefore(QueueId a, QueueId b) const {
  return queue_order_->KeyBefore(standing_[a].key, standing_[b].key);
}

bool JobOrder::CoarseBefore(QueueId a, QueueId b) const {
  return QueueOrder::CoarseBefore(standing_[a].key, standing_[b].key);
}

bool JobOrder::Refresh(QueueId q, bool children_changed) {
  Standing& st = standing_[q];
  GroupId candidate = kNone;
  const ResourceVector* need = nullptr;
  if (is_leaf_[q]) {
    if (cursor_[q] < jobs_[q].size()) {
      candidate = jobs_[q][cursor_[q]].job;
      need = &jobs_[q][cursor_[q]].need;
    }
  } else {
    // The children's standings are what the last pick saw: same best child.
    if (children_changed) st.best_child = Best(levels_[children_of_[q]]);
    if (st.best_child != kNone) {
      candidate = standing_[st.best_child].candidate;
      need = &standing_[st.best_child].need;
    }
  }
  const bool had_candidate = st.candidate != kNone;
  st.candidate = candidate;
  const ResourceVector& allocated = session_->state.QueueAllocated(q);
  if (candidate != kNone) {
    // A key depends on the queue's allocation and the job's need alone
    // (QueueOrder::KeyOf): the same two give the same key.
    if (had_candidate && *need == st.need && allocated == st.allocated) return false;
    st.key = KeyFor(q, st, *need, allocated);
    st.need = *need;
    st.allocated = allocated;
  } else if (!had_candidate) {
    return false;
  }
  if (coarse_) {
    Level& level = levels_[level_of_[q]];
    const uint32_t i = index_of_[q];
    if (candidate != kNone) level.ranks[i] = st.key.coarse;
    level.coarse.Update(i, candidate != kNone,
                        [&](uint32_t a, uint32_t b) { return level.ranks[a] < level.ranks[b]; });
  }
  return true;
}

const QueueKey& JobOrder::KeyFor(QueueId q, Standing& st, const ResourceVector& need,
                                 const ResourceVector& allocated) {
  // Keys stay valid while the allocation does (QueueOrder::KeyOf).
  if (!(allocated == st.seen)) {
    st.seen = allocated;
    st.remembered = 0;
    st.next = 0;
  }
  for (uint32_t i = 0; i < st.remembered; ++i)
    if (st.keys[i].need == need) return st.keys[i].key;
  uint32_t slot = st.remembered;
  if (slot < kRemembered) {
    ++st.remembered;
  } else {
    slot = st.next;
    st.next = (st.next + 1) % kRemembered;
  }
  st.keys[slot].need = need;
  st.keys[slot].key = queue_order_->KeyOf(*session_, q, need);
  return st.keys[slot].key;
}

void JobOrder::RefreshSubtree(QueueId q) {
  for (QueueId c : session_->snapshot.queues[q].children) RefreshSubtree(c);
  Refresh(q, /*children_changed=*/true);
}

GroupId JobOrder::Next() {
  // Only the last job's path changed (its allocation and its next job), so
  // only its candidates and keys are worked out again, leaf first; above a
  // queue whose standing stayed the same, no pick changes either.
  bool changed = true;
  for (QueueId a = served_; a != kNone; a = parent_[a]) changed = Refresh(a, changed);
  if (changed) root_best_ = Best(levels_[0]);
  served_ = kNone;
  QueueId q = root_best_;
  if (q == kNone) return kNone;
  while (!is_leaf_[q]) q = standing_[q].best_child;
  served_ = q;
  return jobs_[q][cursor_[q]++].job;
}

}  // namespace vtenant::sched

#include "scheduler-core/queue_order.h"

#include <algorithm>

#include "scheduler-core/victims.h"

namespace vtenant::sched {

JobOrder::JobOrder(const Session& session, const std::vector<GroupId>& jobs)
    : session_(&session),
      jobs_(session.snapshot.queues.size()),
      cursor_(session.snapshot.queues.size(), 0),
      need_(session.snapshot.groups.size()),
      candidate_(session.snapshot.queues.size(), kNone),
      key_(session.snapshot.queues.size()),
      best_child_(session.snapshot.queues.size(), kNone),
      fresh_(session.snapshot.queues.size(), 0) {
  const Snapshot& s = session.snapshot;
  for (GroupId g : jobs) {
    jobs_[session.job_facts[g].queue].push_back(g);
    need_[g] = GangNeed(session, g);
  }
  const JobRank& rank = *session.rules.job_rank;
  for (auto& list : jobs_) rank.Sort(s, &list);
  for (QueueId q = 0; q < s.queues.size(); ++q)
    if (s.queues[q].parent == kNone) roots_.push_back(q);
}

QueueId JobOrder::Best(const std::vector<QueueId>& level) {
  const QueueOrder& order = *session_->rules.queue_order;
  QueueId best = kNone;
  for (QueueId q : level) {
    const GroupId job = Candidate(q);
    if (job == kNone) continue;
    if (best == kNone || order.KeyBefore(key_[q], key_[best])) best = q;
  }
  return best;
}

GroupId JobOrder::Candidate(QueueId q) {
  if (fresh_[q]) return candidate_[q];
  const Snapshot& s = session_->snapshot;
  GroupId job = kNone;
  if (s.queues[q].children.empty()) {
    if (cursor_[q] < jobs_[q].size()) job = jobs_[q][cursor_[q]];
  } else {
    best_child_[q] = Best(s.queues[q].children);
    if (best_child_[q] != kNone) job = candidate_[best_child_[q]];
  }
  candidate_[q] = job;
  if (job != kNone) key_[q] = session_->rules.queue_order->KeyOf(*session_, q, need_[job]);
  fresh_[q] = 1;
  return job;
}

GroupId JobOrder::Next() {
  const Snapshot& s = session_->snapshot;
  QueueId q = Best(roots_);
  if (q == kNone) return kNone;
  while (!s.queues[q].children.empty()) q = best_child_[q];
  GroupId job = jobs_[q][cursor_[q]++];
  // Only this path's allocation (and its next job) changes, so only its
  // candidates and keys are worked out again.
  for (QueueId a = q; a != kNone; a = s.queues[a].parent) fresh_[a] = 0;
  return job;
}

}  // namespace vtenant::sched

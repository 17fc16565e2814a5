#include "scheduler-core/queue_order.h"

#include <algorithm>

#include "scheduler-core/victims.h"

namespace vtenant::sched {

JobOrder::JobOrder(const Session& session, const std::vector<GroupId>& jobs)
    : session_(&session),
      jobs_(session.snapshot.queues.size()),
      cursor_(session.snapshot.queues.size(), 0),
      standing_(session.snapshot.queues.size()) {
  const Snapshot& s = session.snapshot;
  std::vector<std::vector<GroupId>> by_queue(s.queues.size());
  for (GroupId g : jobs) by_queue[session.job_facts[g].queue].push_back(g);
  const JobRank& rank = *session.rules.job_rank;
  for (QueueId q = 0; q < s.queues.size(); ++q) {
    rank.Sort(s, &by_queue[q]);
    jobs_[q].reserve(by_queue[q].size());
    for (GroupId g : by_queue[q]) jobs_[q].push_back({g, GangNeed(session, g)});
    if (s.queues[q].parent == kNone) roots_.push_back(q);
  }
}

QueueId JobOrder::Best(const std::vector<QueueId>& level) {
  const QueueOrder& order = *session_->rules.queue_order;
  QueueId best = kNone;
  for (QueueId q : level) {
    if (Candidate(q) == kNone) continue;
    if (best == kNone || order.KeyBefore(standing_[q].key, standing_[best].key)) best = q;
  }
  return best;
}

GroupId JobOrder::Candidate(QueueId q) {
  Standing& st = standing_[q];
  if (st.fresh) return st.candidate;
  const Snapshot& s = session_->snapshot;
  st.candidate = kNone;
  if (s.queues[q].children.empty()) {
    if (cursor_[q] < jobs_[q].size()) {
      st.candidate = jobs_[q][cursor_[q]].job;
      st.need = jobs_[q][cursor_[q]].need;
    }
  } else {
    st.best_child = Best(s.queues[q].children);
    if (st.best_child != kNone) {
      st.candidate = standing_[st.best_child].candidate;
      st.need = standing_[st.best_child].need;
    }
  }
  if (st.candidate != kNone) st.key = session_->rules.queue_order->KeyOf(*session_, q, st.need);
  st.fresh = true;
  return st.candidate;
}

GroupId JobOrder::Next() {
  const Snapshot& s = session_->snapshot;
  QueueId q = Best(roots_);
  if (q == kNone) return kNone;
  while (!s.queues[q].children.empty()) q = standing_[q].best_child;
  GroupId job = jobs_[q][cursor_[q]++].job;
  // Only this path's allocation (and its next job) changes, so only its
  // candidates and keys are worked out again.
  for (QueueId a = q; a != kNone; a = s.queues[a].parent) standing_[a].fresh = false;
  return job;
}

}  // namespace vtenant::sched

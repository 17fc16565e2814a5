#include "scheduler-core/queue_order.h"

#include <algorithm>

namespace vtenant::sched {

bool JobBefore(const Snapshot& s, GroupId a, GroupId b) {
  const PodGroup& ga = s.groups[a];
  const PodGroup& gb = s.groups[b];
  if (ga.priority != gb.priority) return ga.priority > gb.priority;
  if (ga.creation_time != gb.creation_time) return ga.creation_time < gb.creation_time;
  if (ga.name != gb.name) return ga.name < gb.name;
  return a < b;
}

JobOrder::JobOrder(const Session& session, const std::vector<GroupId>& jobs)
    : session_(&session),
      jobs_(session.snapshot.queues.size()),
      cursor_(session.snapshot.queues.size(), 0),
      remaining_(session.snapshot.queues.size(), 0) {
  const Snapshot& s = session.snapshot;
  for (GroupId g : jobs) {
    QueueId q = s.groups[g].queue;
    jobs_[q].push_back(g);
    for (QueueId a = q; a != kNone; a = s.queues[a].parent) ++remaining_[a];
  }
  for (auto& list : jobs_)
    std::sort(list.begin(), list.end(), [&](GroupId a, GroupId b) { return JobBefore(s, a, b); });
  for (QueueId q = 0; q < s.queues.size(); ++q)
    if (s.queues[q].parent == kNone) roots_.push_back(q);
}

bool JobOrder::Before(QueueId a, QueueId b) const {
  const Queue& qa = session_->snapshot.queues[a];
  const Queue& qb = session_->snapshot.queues[b];
  if (qa.priority != qb.priority) return qa.priority > qb.priority;
  double ra = session_->SaturationRatio(a);
  double rb = session_->SaturationRatio(b);
  if (ra != rb) return ra < rb;
  if (qa.creation_time != qb.creation_time) return qa.creation_time < qb.creation_time;
  return qa.name < qb.name;
}

GroupId JobOrder::Next() {
  const Snapshot& s = session_->snapshot;
  const std::vector<QueueId>* level = &roots_;
  QueueId chosen = kNone;
  while (true) {
    QueueId best = kNone;
    for (QueueId q : *level)
      if (remaining_[q] > 0 && (best == kNone || Before(q, best))) best = q;
    if (best == kNone) return kNone;
    chosen = best;
    if (s.queues[best].children.empty()) break;
    level = &s.queues[best].children;
  }
  GroupId job = jobs_[chosen][cursor_[chosen]++];
  for (QueueId a = chosen; a != kNone; a = s.queues[a].parent) --remaining_[a];
  return job;
}

}  // namespace vtenant::sched

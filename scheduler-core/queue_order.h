// The order in which allocate (and the actions after it) consider jobs.
//
// At every level of the queue tree the next job comes from the sibling that
// is highest in priority and, among equals, furthest below its fair share
// (lowest allocated/fair share), then the older queue, then the smaller name.
// Inside a leaf queue jobs go by priority, then age. The ratio is read afresh
// for every job, so a queue that just got resources yields to the others.
#pragma once

#include <vector>

#include "scheduler-core/session.h"

namespace vtenant::sched {

class JobOrder {
 public:
  // `jobs`: the groups to hand out, each exactly once.
  JobOrder(const Session& session, const std::vector<GroupId>& jobs);

  // The next job, or kNone when all have been handed out.
  GroupId Next();

 private:
  bool Before(QueueId a, QueueId b) const;

  const Session* session_;
  std::vector<std::vector<GroupId>> jobs_;  // per leaf queue, best first
  std::vector<size_t> cursor_;              // per leaf queue
  std::vector<int64_t> remaining_;          // per queue subtree
  std::vector<QueueId> roots_;
};

// Jobs of a leaf queue: higher priority, then older, then smaller name.
bool JobBefore(const Snapshot& snapshot, GroupId a, GroupId b);

}  // namespace vtenant::sched

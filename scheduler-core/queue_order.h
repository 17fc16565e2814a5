// The order in which allocate considers jobs.
//
// At every level of the queue tree the next job comes from the sibling the
// session's QueueOrder puts first, each sibling judged with the job it would
// hand out next (a parent queue: its best child's); inside a leaf queue jobs
// go in JobRank order. Queues are compared afresh for every job, so a queue
// that just got resources yields to the others; only the chosen job's path
// changes between two jobs, so only that path's candidates and queue keys
// are worked out again.
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
  // The job queue q's subtree hands out next, kNone when it has none left.
  GroupId Candidate(QueueId q);
  // The queue of `level` the queue order puts first among those with jobs.
  QueueId Best(const std::vector<QueueId>& level);

  const Session* session_;
  std::vector<std::vector<GroupId>> jobs_;  // per leaf queue, best first
  std::vector<size_t> cursor_;              // per leaf queue
  std::vector<ResourceVector> need_;        // per group: what its gang asks for
  std::vector<GroupId> candidate_;          // per queue, valid when fresh_
  std::vector<QueueKey> key_;               // per queue with a candidate, valid when fresh_
  std::vector<QueueId> best_child_;         // per parent queue, valid when fresh_
  std::vector<uint8_t> fresh_;
  std::vector<QueueId> roots_;
};

}  // namespace vtenant::sched

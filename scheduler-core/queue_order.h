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

  // A job waiting in a leaf queue, with what its gang asks for beside it so
  // that handing it out reads the queue's list in order.
  struct Waiting {
    GroupId job;
    ResourceVector need;
  };
  // Per queue, what Candidate worked out, valid while `fresh`.
  struct Standing {
    bool fresh = false;
    GroupId candidate = kNone;
    ResourceVector need;         // the candidate's
    QueueId best_child = kNone;  // parent queues
    QueueKey key;                // with the candidate's need
  };

  const Session* session_;
  std::vector<std::vector<Waiting>> jobs_;  // per leaf queue, best first
  std::vector<size_t> cursor_;              // per leaf queue
  std::vector<Standing> standing_;          // per queue
  std::vector<QueueId> roots_;
};

}  // namespace vtenant::sched

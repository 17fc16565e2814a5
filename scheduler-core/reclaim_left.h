// What reclaim read of each job it leaves unsatisfied, handed to preempt.
//
// Preempt walks the very jobs reclaim left, in the same order, right after
// it, and asks each the same questions (its block, queue, priority, first
// pending pod's shape and gang shortfall): reading them again from the
// per-group and per-pod arrays is several cache misses per job, for tens
// of thousands of jobs. Reclaim writes them here, one small entry per job
// in its output's order, which preempt reads front to back.
//
// The entries stay exact until preempt reads them, provided nothing was
// placed or evicted in between (preempt checks the journal's length): a job that stays
// unsatisfied gets pods placed only by its own successful attempt (after
// which it is no longer in the list), so a job with no pod placed when its
// entry was written still has none, and its first pending pod and
// shortfall are as written. Only such a job's entry is marked exact; one
// with pods placed (which may yet be evicted) or with subgroups is asked
// again. Its block changes only through its own attempts, which are
// behind the entry when it is written.
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler-core/session.h"

namespace vtenant::sched {

struct ReclaimLeft {
  struct Job {
    GroupId job;
    QueueId queue;
    int32_t priority;
    ShapeId first_shape;  // kNone: no pod pending
    int32_t shortfall;    // GangShortfall
    JobBlock block;
    // queue .. shortfall are set and stay exact (see above); otherwise only
    // job and block are.
    bool exact;
  };
  std::vector<Job> jobs;  // in the order of reclaim's output
  // The statement's journal length when reclaim finished: the entries are
  // used only while nothing was placed or evicted since.
  size_t journal_size = 0;
};

}  // namespace vtenant::sched

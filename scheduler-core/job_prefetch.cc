#include "scheduler-core/job_prefetch.h"

namespace vtenant::sched {

void JobPrefetcher::Ahead(size_t i) const {
  if (i + kFar < jobs_.size()) {
    const GroupId g = jobs_[i + kFar];
    __builtin_prefetch(&session_.outcome[g]);
    __builtin_prefetch(&session_.job_facts[g]);
    __builtin_prefetch(&session_.pending_begin[g]);
    __builtin_prefetch(&session_.has_subgroups[g]);
    __builtin_prefetch(&session_.snapshot.groups[g].priority);
  }
  if (i + kNear < jobs_.size()) {
    // pending_begin[g] was asked for kFar - kNear jobs ago.
    const uint32_t first = session_.pending_begin[jobs_[i + kNear]];
    if (first < session_.pending.size()) __builtin_prefetch(&session_.pending[first]);
  }
  if (i + kClose < jobs_.size()) {
    // The job's first pending pod's request (read by every job that passes
    // the memo: what it needs on a node), through pending[first], asked for
    // kNear - kClose jobs ago. Pods placed since are skipped by the walk
    // itself; their request only costs a line read for nothing.
    const GroupId g = jobs_[i + kClose];
    const uint32_t first = session_.pending_begin[g];
    if (first < session_.pending_begin[g + 1])
      __builtin_prefetch(&session_.snapshot.pods[session_.pending[first].pod].request);
  }
}

}  // namespace vtenant::sched

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
}

}  // namespace vtenant::sched

// Reading ahead for the walks over unsatisfied jobs.
//
// Reclaim and preempt visit tens of thousands of unsatisfied jobs in
// allocation's order, which has nothing to do with where each job's facts
// sit in memory: a job's outcome, packed facts, first pending pod and
// PodGroup record are a cache miss each, and a job that is passed over
// (most of them) does little else. Asking for those lines a few jobs ahead
// lets the misses of several jobs overlap instead of being waited for one
// at a time. It changes no value, only when memory is read.
#pragma once

#include <cstddef>
#include <span>

#include "scheduler-core/session.h"

namespace vtenant::sched {

class JobPrefetcher {
 public:
  // `jobs` must outlive the prefetcher and not change while it is used.
  JobPrefetcher(const Session& session, std::span<const GroupId> jobs)
      : session_(session), jobs_(jobs) {}

  // Call before working on jobs[i]: asks for what a walk reads of the jobs
  // a few places further on.
  void Ahead(size_t i) const;

 private:
  // How far ahead the first lines are asked for, how far the lines found
  // through them (a job's first pending pod, through pending_begin), and
  // how far that pod's request (through the pending pod).
  static constexpr size_t kFar = 16;
  static constexpr size_t kNear = 8;
  static constexpr size_t kClose = 4;

  const Session& session_;
  std::span<const GroupId> jobs_;
};

}  // namespace vtenant::sched

// The actions of a cycle, in the order KAI runs them. Each works through the
// session's statement, so what one leaves behind is what the next one sees.
#pragma once

#include <vector>

#include "scheduler-core/session.h"

namespace vtenant::sched {

// Places pending jobs in JobOrder order. Returns the jobs still unsatisfied,
// in the order they were considered (the later actions keep that order).
std::vector<GroupId> Allocate(Session& session);

// Takes out of `unsatisfied` the jobs within their preemption delay
// (PodGroup::preemption_delay_s, counted from the later of their creation
// and their last eviction), with a note saying until when: as KAI does,
// such a job takes only free room and makes none by evicting others, so a
// job evicted a moment ago does not evict its evictor back at once.
void HoldBackWithinPreemptionDelay(Session& session, std::vector<GroupId>& unsatisfied);

// Moves running preemptible pods between nodes when that, and only that,
// lets a pending job fit: every moved pod must be placed again.
void Consolidate(Session& session, std::vector<GroupId>& unsatisfied);

// Evicts preemptible jobs of queues above their fair share (or quota) for
// jobs of queues below theirs, respecting reclaim min runtime.
void Reclaim(Session& session, std::vector<GroupId>& unsatisfied);

// Evicts lower-priority preemptible jobs of the same queue, respecting
// preempt min runtime.
void Preempt(Session& session, std::vector<GroupId>& unsatisfied);

// Evicts gangs that have run below minMember for at least their grace
// (PodGroup::stale_grace_s, else options.stale_gang_grace_s; a negative one
// never) and are still short, and still placed, after
// this cycle's allocations.
void EvictStaleGangs(Session& session);

}  // namespace vtenant::sched

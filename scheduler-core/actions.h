// The actions of a cycle, in the order KAI runs them. Each works through the
// session's statement, so what one leaves behind is what the next one sees.
#pragma once

#include <vector>

#include "scheduler-core/session.h"

namespace vtenant::sched {

// Places pending jobs in JobOrder order. Returns the jobs still unsatisfied,
// in the order they were considered (the later actions keep that order).
std::vector<GroupId> Allocate(Session& session);

// Moves running preemptible pods between nodes when that, and only that,
// lets a pending job fit: every moved pod must be placed again.
void Consolidate(Session& session, std::vector<GroupId>& unsatisfied);

// Evicts preemptible jobs of queues above their fair share (or quota) for
// jobs of queues below theirs, respecting reclaim min runtime.
void Reclaim(Session& session, std::vector<GroupId>& unsatisfied);

// Evicts lower-priority preemptible jobs of the same queue, respecting
// preempt min runtime.
void Preempt(Session& session, std::vector<GroupId>& unsatisfied);

// Evicts gangs that have run below minMember for at least
// options.stale_gang_grace_s and are still short, and still placed, after
// this cycle's allocations.
void EvictStaleGangs(Session& session);

}  // namespace vtenant::sched

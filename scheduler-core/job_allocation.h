// Placing one job: its gang minimum all together or not at all, then any
// further pods that fit (KAI's elastic jobs).
#pragma once

#include <vector>

#include "scheduler-core/session.h"

namespace vtenant::sched {

enum class Attempt : uint8_t {
  // Nothing was uncommitted before and nothing freed: failures are facts
  // about the committed state and go into the session's failure caches.
  kCommitted,
  // Evictions of this attempt are still open (reclaim, preempt,
  // consolidation): the caches neither answer nor learn.
  kSpeculative,
};

// Tries to satisfy `group`'s gang and place its other pending pods. On
// success the placements stay in the statement; on failure everything this
// call placed is rolled back and session.outcome[group] says why.
bool AllocateJob(Session& session, GroupId group, Attempt attempt);

// The group's pods that are still to be placed, gang-critical ones first:
// pods filling the sub-group minimums the tree still needs
// (SubGroupTree::Deficits), then the others, each in creation order.
std::vector<PodId> PendingPodsInOrder(const Session& session, GroupId group);
// The same into `out` (cleared first), reusing its memory.
void PendingPodsInOrder(const Session& session, GroupId group, std::vector<PodId>* out);

// PendingPodsInOrder(session, group)'s first pod (kNone: none), without
// building the list: every action asks this of every unsatisfied job.
PodId FirstPendingPod(const Session& session, GroupId group);

// How many more pods must be placed together before the gang is satisfied.
int32_t GangShortfall(const Session& session, GroupId group);

// Checks the queue path of `group` for `extra` more usage: limits for every
// job, quota for non-preemptible jobs. Fills `why` and returns false when a
// queue would be exceeded.
bool FitsQueueBudget(const Session& session, GroupId group, const ResourceVector& extra,
                     JobOutcome* why);

}  // namespace vtenant::sched

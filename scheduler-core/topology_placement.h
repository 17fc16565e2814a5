// Placing pods of a job that has topology constraints, on the job itself
// and on any of its sub-groups, as KAI's allocate walks a PodGroup's
// sub-group tree.
//
// Each node of the tree (the group, a set, a leaf) with a constraint gives
// its pods one domain to share, within the domains its ancestors were
// given. Its candidates are the domains of its required level that could
// hold them (only those already holding a placed pod of the node, if any
// does: running pods keep theirs). With a preferred level too, every domain
// of that level inside a candidate is tried before any candidate as a
// whole, as KAI tries the deepest level's domains first. A preferred level
// alone falls back to the ancestors' domains. Only domains whose free GPU
// covers what the pods ask for are tried, in the placement policy's order
// (binpack: the fullest first; spread: the emptiest). Within a domain the
// node's children are placed in turn (sets, then leaves, then pods of the
// group in no sub-group), each choosing its own domain; when one fails,
// everything placed within that domain is rolled back and the next domain
// is tried. Siblings already placed are not tried in another order, as in
// KAI. One placement tries at most Options::topology_max_domain_tries
// domains, so a hostile tree cannot hold the cycle.
#pragma once

#include <span>

#include "scheduler-core/session.h"

namespace vtenant::sched {

// Places every one of `pods` (pending pods of `group`, in the order given,
// which the leaves keep) so that each constraint of the group and of the
// sub-groups they are in holds, or none of them. True when all were
// placed; they stay in the session's statement. On false the statement is
// as it was and `why` says what stopped the last try: kTopology when no
// domain of a required level could take the pods it had to hold,
// kNoNode or kGangPartial when a pod found no node within its domains.
bool PlaceWithinTopology(Session& session, GroupId group, std::span<const PodId> pods,
                         JobOutcome* why);

}  // namespace vtenant::sched

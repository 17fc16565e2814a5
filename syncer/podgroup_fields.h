// The members of a virtual KAI PodGroup's spec that its host PodGroup may
// carry; anything else is left out and reported (allowlist.h).
//
//   minMember, minSubGroup, priorityClassName (a class the host offers),
//     preemptibility, markUnschedulable, preemptionDelay,
//     stalenessGracePeriod: read and checked by GangOfPodGroup (gang.h);
//   queue: never; the host group's is the tenant's queue;
//   subGroups: each entry's name, minMember, minSubGroup, parent and
//     topologyConstraint (as the group's, below; kai::ReadSubGroups checks
//     its members are strings);
//   topologyConstraint: topology, requiredTopologyLevel and
//     preferredTopologyLevel, strings. The host scheduler reads the levels
//     of the named Topology (or, naming none, node label keys) whose domain
//     the gang's pods, or a sub-group's, must or should share. They only
//     narrow which nodes the gang may use, inside its queue and the
//     Tenant's node selector, so they cannot take it out of the tenant;
//   anything else (schedulingBackoff, backoffLimit, completions,
//     parallelism, members of newer KAI versions): left out and reported.
#pragma once

#include "base/status.h"
#include "kube/object.h"
#include "syncer/gang.h"

namespace vtenant::syncer {

// Sets `gang`'s sub_groups and topology_constraint from virtual PodGroup
// `pg` as above, and appends the spec members it leaves out to
// gang.dropped. InvalidArgument naming the field when topologyConstraint
// is not an object, or one of its members not a string.
Status TakePodGroupSpec(const rapidjson::Value& pg, Gang& gang);

}  // namespace vtenant::syncer

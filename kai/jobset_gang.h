// The gang KAI's pod grouper makes of a JobSet (jobset.x-k8s.io), as its
// newest version does: one PodGroup for the whole JobSet with a two-level
// sub-group tree, so that each replica starts whole and the JobSet starts
// once the replicatedJobs it needs can.
//
//   - One parent per replicatedJob, named after it, satisfied when all its
//     replicas are (minSubGroup: its `replicas`, default 1).
//   - One leaf per replica, "<replicatedJob>-replica-<index>", minMember
//     the Job template's `parallelism` (default 1), or the template's own
//     kai.scheduler/batch-min-member annotation.
//   - The PodGroup's minSubGroup: the JobSet's kai.scheduler/batch-min-member
//     (at most the number of replicatedJobs); else 1 under startupPolicy
//     InOrder (the JobSet controller makes one replicatedJob at a time);
//     else all of them.
//   - Each leaf's topology: its replicatedJob template's kai.scheduler/topology
//     and topology-*-placement annotations (kai::TemplateTopology), so that
//     each replica shares a domain of its own.
//   - A pod joins the leaf its JobSet labels name (kai/names.h:
//     jobset.sigs.k8s.io/replicatedjob-name and job-index).
#pragma once

#include <rapidjson/document.h>

#include "base/status.h"
#include "kai/sub_group_gang.h"

namespace vtenant::kai {

// The gang of `jobset`'s pod `pod`, by the rules above: min_sub_group set,
// each replicatedJob's parent followed by its replicas' leaves, in the
// JobSet's order. InvalidArgument, naming the JobSet and what is wrong, for
// what KAI's grouper refuses: no spec.replicatedJobs, one without a name,
// an invalid batch-min-member annotation (kai/min_member.h), a pod without
// its JobSet labels or naming a replica the JobSet does not have.
Result<SubGroupGang> ReadJobSetGang(const rapidjson::Value& jobset, const rapidjson::Value& pod);

}  // namespace vtenant::kai

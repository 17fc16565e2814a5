// The gang KAI's pod grouper makes of a KubeRay cluster (ray.io): one
// PodGroup for the RayCluster, whose pods are its head and its worker
// groups' workers, so the cluster starts once its head and every worker
// group's minimum can run together.
//
//   - Sub-group "headgroup" (minMember 1), and one per worker group, named
//     by its groupName (else "worker-group-<index>"), minMember
//     (minReplicas if above 0, else replicas) × numOfHosts (default 1). A
//     group that is suspended, or asks for no replicas at all, is left out.
//   - minMember: the sum of the sub-groups' minimums.
//   - A pod joins the sub-group its ray.io/group label names (KubeRay
//     labels the head "headgroup" and each worker with its group's name);
//     a pod without it, or naming a group the cluster does not have, joins
//     none (KAI logs it and groups the pod all the same).
//   - Each sub-group's topology: its group's pod template's
//     kai.scheduler/topology and topology-*-placement annotations
//     (kai::TemplateTopology); a placement level without a Topology is
//     refused, as KAI refuses it.
// A RayJob's or RayService's pods are its RayCluster's, counted on the
// RayCluster in their owner chain; a pod of one that no RayCluster owns (a
// RayJob's submitter) is not the cluster's (kai/top_owner.h).
#pragma once

#include <rapidjson/document.h>

#include <string_view>

#include "base/status.h"
#include "kai/sub_group_gang.h"

namespace vtenant::kai {

// Whether an owner of `api_version` and `kind` is a KubeRay workload KAI
// gangs: ray.io's RayCluster, RayJob or RayService, of any version.
bool IsRayWorkload(std::string_view api_version, std::string_view kind);

// The gang of `cluster`'s (a RayCluster's) pod `pod`, by the rules above:
// min_member set. InvalidArgument, naming the RayCluster and the group,
// when a worker group's minReplicas is above its replicas, or a group's
// template names a placement level but no Topology (KAI's refusals).
Result<SubGroupGang> ReadRayClusterGang(const rapidjson::Value& cluster,
                                        const rapidjson::Value& pod);

}  // namespace vtenant::kai

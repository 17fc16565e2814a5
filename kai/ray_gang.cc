#include "kai/ray_gang.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "kai/names.h"
#include "kai/object_fields.h"
#include "kai/workload_topology.h"

namespace vtenant::kai {

namespace {

// The constraint of the Ray group whose spec is `group_spec` (its pod
// template's annotations), named `which` in an error: a level without a
// Topology is refused, as KAI's grouper refuses it.
Result<TopologyConstraint> GroupTopology(const rapidjson::Value* group_spec,
                                         const std::string& where, const std::string& which) {
  const rapidjson::Value* pod_template =
      group_spec == nullptr ? nullptr : Member(*group_spec, "template");
  if (pod_template == nullptr) return TopologyConstraint{};
  TopologyConstraint named = WorkloadTopology(*pod_template);
  if (named.topology.empty() && (!named.required_level.empty() || !named.preferred_level.empty()))
    return InvalidArgument(where + ": " + which + " sets a topology placement annotation without " +
                           kTopologyAnnotation + " naming its Topology");
  return SubGroupTopology(std::move(named));
}

}  // namespace

bool IsRayWorkload(std::string_view api_version, std::string_view kind) {
  return api_version.starts_with("ray.io/") &&
         (kind == "RayCluster" || kind == "RayJob" || kind == "RayService");
}

Result<SubGroupGang> ReadRayClusterGang(const rapidjson::Value& cluster,
                                        const rapidjson::Value& pod) {
  const std::string where = "RayCluster " + StringAt(cluster, {"metadata", "name"});
  SubGroupGang gang;
  VT_ASSIGN_OR_RETURN(
      TopologyConstraint head_topology,
      GroupTopology(MemberAt(cluster, {"spec", "headGroupSpec"}), where, "headGroupSpec"));
  gang.sub_groups.push_back({kRayHeadGroup, "", 1, std::nullopt, std::move(head_topology)});
  int64_t total = 1;
  const rapidjson::Value* groups = MemberAt(cluster, {"spec", "workerGroupSpecs"});
  for (rapidjson::SizeType i = 0; groups != nullptr && groups->IsArray() && i < groups->Size();
       ++i) {
    const rapidjson::Value& g = (*groups)[i];
    const rapidjson::Value* suspended = Member(g, "suspended");
    if (suspended != nullptr && suspended->IsBool() && suspended->GetBool()) continue;
    const int64_t replicas = IntAt(g, {"replicas"}).value_or(0);
    const int64_t min_replicas = IntAt(g, {"minReplicas"}).value_or(0);
    std::string name = StringAt(g, {"groupName"});
    if (name.empty()) name = "worker-group-" + std::to_string(i);
    if (min_replicas > replicas)
      return InvalidArgument(where + ": workerGroupSpecs[" + std::to_string(i) + "] (" + name +
                             ") has minReplicas " + std::to_string(min_replicas) +
                             " above replicas " + std::to_string(replicas));
    if (replicas == 0 && min_replicas == 0) continue;
    const int64_t hosts = IntAt(g, {"numOfHosts"}).value_or(1);
    const int64_t min = (min_replicas > 0 ? min_replicas : replicas) * hosts;
    total += min;
    VT_ASSIGN_OR_RETURN(TopologyConstraint topology,
                        GroupTopology(&g, where, "workerGroupSpecs." + name));
    gang.sub_groups.push_back({name, "", SpecCount(min), std::nullopt, std::move(topology)});
  }
  gang.min_member = std::max<int32_t>(1, SpecCount(total));
  if (std::optional<std::string_view> group = Label(pod, kRayGroupLabel)) {
    for (const GangSubGroup& s : gang.sub_groups)
      if (s.name == *group) gang.pod_sub_group = s.name;
  }
  return gang;
}

}  // namespace vtenant::kai

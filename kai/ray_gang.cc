#include "kai/ray_gang.h"

#include <algorithm>
#include <limits>
#include <string>

#include "kai/names.h"
#include "kai/object_fields.h"

namespace vtenant::kai {

bool IsRayWorkload(std::string_view api_version, std::string_view kind) {
  return api_version.starts_with("ray.io/") &&
         (kind == "RayCluster" || kind == "RayJob" || kind == "RayService");
}

Result<SubGroupGang> ReadRayClusterGang(const rapidjson::Value& cluster,
                                        const rapidjson::Value& pod) {
  const std::string where = "RayCluster " + StringAt(cluster, {"metadata", "name"});
  SubGroupGang gang;
  gang.sub_groups.push_back({kRayHeadGroup, "", 1, std::nullopt});
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
    gang.sub_groups.push_back({name, "", SpecCount(min), std::nullopt});
  }
  gang.min_member = std::max<int32_t>(1, SpecCount(total));
  if (std::optional<std::string_view> group = Label(pod, kRayGroupLabel)) {
    for (const GangSubGroup& s : gang.sub_groups)
      if (s.name == *group) gang.pod_sub_group = s.name;
  }
  return gang;
}

}  // namespace vtenant::kai

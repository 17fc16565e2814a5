#include "scheduler/podgroup_translator.h"

#include "scheduler/pod_translator.h"
#include "scheduler/subgroups.h"

namespace vtenant::scheduler {

Result<TranslatedGroup> TranslatePodGroup(const rapidjson::Value& group) {
  TranslatedGroup t;
  sched::GroupSpec& g = t.spec;
  g.name = kube::KeyOf(group);
  g.queue = std::string(kube::GetString(group, {"spec", "queue"}));
  g.min_member =
      static_cast<int32_t>(std::max<int64_t>(1, kube::GetInt(group, {"spec", "minMember"}, 1)));
  g.creation_time = ParseTimestamp(kube::GetString(group, {"metadata", "creationTimestamp"}));
  std::string_view p = kube::GetString(group, {"spec", "preemptibility"});
  t.preemptibility_set = !p.empty();
  if (p == "preemptible") {
    g.preemptible = true;
  } else if (p == "non-preemptible") {
    g.preemptible = false;
  } else if (!p.empty()) {
    return InvalidArgument("podgroup " + g.name + ": spec.preemptibility \"" + std::string(p) +
                           "\" is neither preemptible nor non-preemptible");
  }
  g.required_topology =
      std::string(kube::GetString(group, {"spec", "topologyConstraint", "requiredTopologyLevel"}));
  g.preferred_topology =
      std::string(kube::GetString(group, {"spec", "topologyConstraint", "preferredTopologyLevel"}));
  const rapidjson::Value* spec = kube::Find(group, {"spec"});
  const rapidjson::Value* subs = nullptr;
  if (spec != nullptr)
    if (auto it = spec->FindMember("subGroups"); it != spec->MemberEnd()) subs = &it->value;
  Result<SubGroups> read = ReadSubGroups(subs);
  if (!read.ok()) return read.status().WithContext("podgroup " + g.name);
  g.subgroups = std::move(read->leaves);
  t.parent_subgroups = std::move(read->parents);
  return t;
}

}  // namespace vtenant::scheduler

#include "scheduler/core_podgroup.h"

#include "kai/podgroup_spec.h"
#include "scheduler/core_pod.h"

namespace vtenant::scheduler {

Result<CoreGroup> CoreGroupFromHost(const rapidjson::Value& group) {
  CoreGroup t;
  sched::GroupSpec& g = t.spec;
  g.name = kube::KeyOf(group);
  Result<kai::PodGroupSpec> spec = kai::ReadPodGroupSpec(group);
  if (!spec.ok()) return spec.status().WithContext("podgroup " + g.name);
  g.queue = std::string(kube::GetString(group, {"spec", "queue"}));
  g.min_member = spec->min_member;
  g.creation_time = ParseTimestamp(kube::GetString(group, {"metadata", "creationTimestamp"}));
  t.preemptibility_set = !spec->preemptibility.empty();
  if (t.preemptibility_set) g.preemptible = spec->preemptibility == kai::kPreemptible;
  g.required_topology =
      std::string(kube::GetString(group, {"spec", "topologyConstraint", "requiredTopologyLevel"}));
  g.preferred_topology =
      std::string(kube::GetString(group, {"spec", "topologyConstraint", "preferredTopologyLevel"}));
  for (kai::SubGroup& leaf : spec->sub_groups.leaves) {
    g.subgroups.push_back({std::move(leaf.name), leaf.min_member});
  }
  t.parent_subgroups = std::move(spec->sub_groups.parents);
  g.preemption_delay_s = spec->preemption_delay_s.value_or(0);
  g.stale_grace_s = spec->staleness_grace_s;
  return t;
}

}  // namespace vtenant::scheduler

#include "scheduler/core_podgroup.h"

#include <map>

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
  t.priority_class = spec->priority_class;
  t.preemptibility_set = !spec->preemptibility.empty();
  if (t.preemptibility_set) g.preemptible = spec->preemptibility == kai::kPreemptible;
  t.topology = {
      std::string(kube::GetString(group, {"spec", "topologyConstraint", "topology"})),
      std::string(kube::GetString(group, {"spec", "topologyConstraint", "requiredTopologyLevel"})),
      std::string(
          kube::GetString(group, {"spec", "topologyConstraint", "preferredTopologyLevel"}))};
  g.required_topology = t.topology.required_level;
  g.preferred_topology = t.topology.preferred_level;
  // The tree by index: kai::ReadSubGroups has checked that every parent
  // names a set of this group and that none is its own ancestor.
  std::map<std::string, int32_t, std::less<>> set_index;
  for (const kai::SubGroupSet& set : spec->sub_groups.parents)
    set_index.emplace(set.name, static_cast<int32_t>(set_index.size()));
  const auto index_of = [&](const std::string& parent) {
    return parent.empty() ? sched::kNoParent : set_index.at(parent);
  };
  const auto keep_topology = [&](const std::string& name, const kai::TopologyConstraint& c) {
    if (c.empty()) return;
    t.subgroup_topology.emplace(name, c);
    g.subgroup_topology.emplace(name,
                                sched::GroupSpec::Levels{c.required_level, c.preferred_level});
  };
  for (kai::SubGroupSet& set : spec->sub_groups.parents) {
    keep_topology(set.name, set.topology);
    g.subgroup_sets.push_back({std::move(set.name), index_of(set.parent),
                               set.min_sub_group.value_or(sched::kAllChildren)});
  }
  for (kai::SubGroup& leaf : spec->sub_groups.leaves) {
    keep_topology(leaf.name, leaf.topology);
    g.subgroups.push_back({std::move(leaf.name), leaf.min_member, index_of(leaf.parent)});
  }
  g.min_sub_group = spec->min_sub_group.value_or(sched::kAllChildren);
  g.preemption_delay_s = spec->preemption_delay_s.value_or(0);
  g.stale_grace_s = spec->staleness_grace_s;
  if (std::optional<std::string_view> since =
          kube::Annotation(group, kai::kStalePodGroupTimestampAnnotation)) {
    if (const int64_t when = ParseTimestamp(*since); when > 0) t.stale_since_written = when;
  }
  t.last_eviction_written =
      ParseTimestamp(kube::Annotation(group, kai::kLastEvictionTimestampAnnotation).value_or(""));
  t.last_start_written =
      ParseTimestamp(kube::Annotation(group, kai::kLastStartTimestampAnnotation).value_or(""));
  return t;
}

}  // namespace vtenant::scheduler

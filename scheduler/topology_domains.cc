#include "scheduler/topology_domains.h"

#include <optional>

namespace vtenant::scheduler {

std::string DomainLabelKey(std::string_view topology, std::string_view node_label) {
  return std::string(topology) + ":" + std::string(node_label);
}

void AddDomainLabels(const Topologies& topologies, sched::LabelPairs* labels) {
  if (topologies.empty()) return;
  const size_t own = labels->size();  // the node's labels, before any added here
  const auto label_of = [&](std::string_view key) -> std::optional<std::string_view> {
    for (size_t i = 0; i < own; ++i)
      if ((*labels)[i].first == key) return (*labels)[i].second;
    return std::nullopt;
  };
  for (const auto& [name, topology] : topologies) {
    for (size_t level = 0; level < topology.levels.size(); ++level) {
      std::optional<std::string> path = kai::DomainPath(topology, level, label_of);
      if (!path) break;  // not part of this topology
      labels->emplace_back(DomainLabelKey(name, topology.levels[level].node_label),
                           std::move(*path));
    }
  }
}

std::string ResolveTopology(const Topologies& topologies, const kai::TopologyConstraint& constraint,
                            std::string_view who, sched::GroupSpec::Levels* levels) {
  *levels = {constraint.required_level, constraint.preferred_level};
  if (constraint.topology.empty()) return "";
  auto it = topologies.find(constraint.topology);
  if (it == topologies.end())
    return "Requested topology " + constraint.topology + " does not exist";
  const kai::Topology& topology = it->second;
  std::optional<size_t> required;
  if (!constraint.required_level.empty()) {
    Result<size_t> index = kai::LevelIndex(topology, constraint.required_level, who, "required");
    if (!index.ok()) return index.status().message();
    required = *index;
    levels->required = DomainLabelKey(topology.name, topology.levels[*index].node_label);
  }
  if (!constraint.preferred_level.empty()) {
    Result<size_t> index = kai::LevelIndex(topology, constraint.preferred_level, who, "preferred");
    // KAI looks for the preferred level from the narrowest up to the
    // required one: a wider one is not found.
    if (index.ok() && required && *index < *required)
      index = kai::NoSuchLevel(topology, constraint.preferred_level, who, "preferred");
    if (!index.ok()) return index.status().message();
    levels->preferred = DomainLabelKey(topology.name, topology.levels[*index].node_label);
  }
  return "";
}

}  // namespace vtenant::scheduler

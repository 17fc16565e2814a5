// KAI's Topology (kai.scheduler/v1alpha1, cluster-scoped): the levels of a
// cluster's network from the widest (a block, a rack) to the narrowest (a
// host), each a node label and, in newer KAI, an alias a workload may name
// in its place. A PodGroup's spec.topologyConstraint names a Topology and
// the level its pods must (requiredTopologyLevel) or should
// (preferredTopologyLevel) share.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace vtenant::kai {

inline constexpr char kTopologyApiGroup[] = "kai.scheduler";
inline constexpr char kTopologyVersion[] = "v1alpha1";
inline constexpr char kTopologyResource[] = "topologies";
inline constexpr char kTopologyKind[] = "Topology";

struct TopologyLevel {
  std::string node_label;
  std::string alias;  // "" when it has none
  bool operator==(const TopologyLevel&) const = default;
};

struct Topology {
  std::string name;
  std::vector<TopologyLevel> levels;  // widest first, as written
  bool operator==(const Topology&) const = default;
};

// Reads a Topology object. InvalidArgument naming the field for what KAI's
// CRD refuses: no spec.levels, an empty list, an entry without a nodeLabel,
// a nodeLabel named twice, or an alias that repeats another's or is a
// nodeLabel (KAI's webhook).
Result<Topology> ReadTopology(const rapidjson::Value& object);

// The index in `topology.levels` of `level`, a nodeLabel or an alias;
// NoSuchLevel when it names none.
Result<size_t> LevelIndex(const Topology& topology, std::string_view level, std::string_view who,
                          std::string_view kind);

// NotFound in KAI's words: "topology constraint error: <who> specified
// '<level>' as the <kind> topology constraint level, but the topology tree
// '<name>' does not contain a level with this name", with `who`
// ("workload") and `kind` ("required", "preferred") as given.
Status NoSuchLevel(const Topology& topology, std::string_view level, std::string_view who,
                   std::string_view kind);

// KAI's domain of a node at level `index`: the values of its labels for
// levels 0..index joined by "." ("block-a.rack-1"), so rack-1 of block-a is
// not rack-1 of block-b. nullopt when the node lacks the label of any level
// of the topology: KAI leaves such a node out of it. `label_of` gives the
// node's value of a label key, nullopt when it has none.
template <typename LabelOf>
std::optional<std::string> DomainPath(const Topology& topology, size_t index, LabelOf label_of) {
  std::string path;
  for (size_t i = 0; i < topology.levels.size(); ++i) {
    std::optional<std::string_view> value = label_of(topology.levels[i].node_label);
    if (!value) return std::nullopt;
    if (i > index) continue;
    if (i > 0) path += '.';
    path += *value;
  }
  return path;
}

}  // namespace vtenant::kai

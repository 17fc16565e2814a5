#include "kai/topology.h"

#include <set>

#include "kai/object_fields.h"

namespace vtenant::kai {

Result<Topology> ReadTopology(const rapidjson::Value& object) {
  Topology out;
  out.name = StringAt(object, {"metadata", "name"});
  const rapidjson::Value* levels = MemberAt(object, {"spec", "levels"});
  if (levels == nullptr || !levels->IsArray() || levels->Empty())
    return InvalidArgument("topology " + out.name + ": spec.levels must list at least one level");
  std::set<std::string> labels;
  for (rapidjson::SizeType i = 0; i < levels->Size(); ++i) {
    const std::string where = "topology " + out.name + ": spec.levels[" + std::to_string(i) + "]";
    const rapidjson::Value& level = (*levels)[i];
    if (!level.IsObject()) return InvalidArgument(where + " is not an object");
    TopologyLevel l{StringAt(level, {"nodeLabel"}), StringAt(level, {"alias"})};
    if (l.node_label.empty()) return InvalidArgument(where + " has no nodeLabel");
    if (!labels.insert(l.node_label).second)
      return InvalidArgument(where + " repeats nodeLabel \"" + l.node_label + "\"");
    out.levels.push_back(std::move(l));
  }
  std::set<std::string> aliases;
  for (size_t i = 0; i < out.levels.size(); ++i) {
    const std::string& alias = out.levels[i].alias;
    if (alias.empty()) continue;
    if (labels.contains(alias) || !aliases.insert(alias).second)
      return InvalidArgument("topology " + out.name + ": spec.levels[" + std::to_string(i) +
                             "] alias \"" + alias +
                             "\" is already a level's nodeLabel or alias; each names one level");
  }
  return out;
}

Result<size_t> LevelIndex(const Topology& topology, std::string_view level, std::string_view who,
                          std::string_view kind) {
  for (size_t i = 0; i < topology.levels.size() && !level.empty(); ++i)
    if (topology.levels[i].node_label == level || topology.levels[i].alias == level) return i;
  return NoSuchLevel(topology, level, who, kind);
}

Status NoSuchLevel(const Topology& topology, std::string_view level, std::string_view who,
                   std::string_view kind) {
  return NotFound("topology constraint error: " + std::string(who) + " specified '" +
                  std::string(level) + "' as the " + std::string(kind) +
                  " topology constraint level, but the topology tree '" + topology.name +
                  "' does not contain a level with this name");
}

}  // namespace vtenant::kai

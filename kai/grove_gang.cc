#include "kai/grove_gang.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "kai/names.h"
#include "kai/object_fields.h"

namespace vtenant::kai {
namespace {

using rapidjson::Value;

// "PodGang <namespace>/<name>: <what>".
Status Refuse(const Value& pod_gang, const std::string& what) {
  return InvalidArgument("PodGang " + StringAt(pod_gang, {"metadata", "namespace"}) + "/" +
                         StringAt(pod_gang, {"metadata", "name"}) + ": " + what);
}

// The Topology the PodGang's constraints are levels of: annotation
// grove.io/topology-name, else kai.scheduler/topology; "" when neither.
std::string TopologyName(const Value& pod_gang) {
  if (auto name = Annotation(pod_gang, kGroveTopologyNameAnnotation)) return std::string(*name);
  return std::string(Annotation(pod_gang, kTopologyAnnotation).value_or(""));
}

// The constraint `holder` (the PodGang's spec, a config or a podgroup)
// gives by its topologyConstraint.packConstraint, on Topology `topology`;
// empty when it has none. `where` names the holder in a refusal.
Result<TopologyConstraint> PackConstraint(const Value& pod_gang, const Value& holder,
                                          const std::string& topology, const std::string& where) {
  const Value* pack = MemberAt(holder, {"topologyConstraint", "packConstraint"});
  if (pack == nullptr) return TopologyConstraint{};
  TopologyConstraint out{.topology = topology};
  bool found = false;
  for (auto [key, level] :
       {std::pair{"required", &out.required_level}, std::pair{"preferred", &out.preferred_level}}) {
    const Value* v = Member(*pack, key);
    if (v == nullptr) continue;
    if (!v->IsString()) {
      return Refuse(pod_gang,
                    where + ".topologyConstraint.packConstraint." + key + " is not a string");
    }
    *level = v->GetString();
    found = true;
  }
  if (!found) return TopologyConstraint{};
  if (topology.empty()) {
    return Refuse(pod_gang, where + " has topology levels, but the PodGang names no Topology (" +
                                kGroveTopologyNameAnnotation + ")");
  }
  return out;
}

// Whether `s` may be a label's value (at most 63 characters of
// alphanumerics, '-', '_' and '.', beginning and ending alphanumeric): a
// sub-group's name is its pods' kai.scheduler/subgroup-name.
bool IsLabelValue(std::string_view s) {
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// The entries of array `path` of the PodGang's spec (none when it is
// absent); a member that is not an array is refused.
Result<std::vector<const Value*>> Entries(const Value& pod_gang, std::string_view path) {
  std::vector<const Value*> out;
  const Value* array = MemberAt(pod_gang, {"spec", path});
  if (array == nullptr) return out;
  if (!array->IsArray()) return Refuse(pod_gang, "spec." + std::string(path) + " is not a list");
  for (const Value& entry : array->GetArray()) out.push_back(&entry);
  return out;
}

}  // namespace

bool IsGroveWorkload(std::string_view api_version, std::string_view kind) {
  return api_version.starts_with("grove.io/") && (kind == "PodCliqueSet" || kind == "PodGangSet");
}

Result<TopologyConstraint> ReadGroveTopology(const Value& pod_gang, const Value* top_owner) {
  TopologyConstraint out;
  if (const Value* spec = Member(pod_gang, "spec")) {
    VT_ASSIGN_OR_RETURN(out, PackConstraint(pod_gang, *spec, TopologyName(pod_gang), "spec"));
  }
  for (const Value* annotated : {&pod_gang, top_owner}) {
    if (annotated == nullptr) continue;
    const TopologyConstraint named = WorkloadTopology(*annotated);
    if (out.topology.empty()) out.topology = named.topology;
    if (out.required_level.empty()) out.required_level = named.required_level;
    if (out.preferred_level.empty()) out.preferred_level = named.preferred_level;
  }
  return out;
}

std::optional<std::string_view> GrovePriorityClass(const Value& pod_gang, const Value* top_owner) {
  if (auto label = Label(pod_gang, "priorityClassName")) return label;
  if (top_owner != nullptr) {
    if (auto label = Label(*top_owner, "priorityClassName")) return label;
  }
  const Value* spec = MemberAt(pod_gang, {"spec", "priorityClassName"});
  if (spec != nullptr && spec->IsString() && spec->GetStringLength() > 0) {
    return std::string_view(spec->GetString(), spec->GetStringLength());
  }
  return std::nullopt;
}

Result<SubGroupGang> ReadGroveGang(const Value& pod_gang, std::string_view pod_name) {
  const std::string topology = TopologyName(pod_gang);
  const std::string ns = StringAt(pod_gang, {"metadata", "namespace"});
  VT_ASSIGN_OR_RETURN(std::vector<const Value*> podgroups, Entries(pod_gang, "podgroups"));
  VT_ASSIGN_OR_RETURN(std::vector<const Value*> configs,
                      Entries(pod_gang, "topologyConstraintGroupConfigs"));

  SubGroupGang gang;
  std::vector<GangSubGroup> leaves;
  int64_t min_member = 0;
  for (size_t i = 0; i < podgroups.size(); ++i) {
    const Value& pg = *podgroups[i];
    const std::string where = "spec.podgroups[" + std::to_string(i) + "]";
    GangSubGroup leaf{.name = StringAt(pg, {"name"})};
    if (leaf.name.empty()) return Refuse(pod_gang, where + " has no name");
    if (!IsLabelValue(leaf.name)) {
      return Refuse(pod_gang, where + ".name \"" + leaf.name +
                                  "\" cannot be a label value, which its pods are labelled with");
    }
    for (const GangSubGroup& other : leaves) {
      if (other.name == leaf.name)
        return Refuse(pod_gang, where + " repeats \"" + leaf.name + "\"");
    }
    const std::optional<int64_t> replicas = IntAt(pg, {"minReplicas"});
    if (!replicas || *replicas <= 0) {
      return Refuse(pod_gang, where + ".minReplicas must be a number greater than 0");
    }
    leaf.min_member = SpecCount(*replicas);
    const Value* references = Member(pg, "podReferences");
    if (references == nullptr || !references->IsArray()) {
      return Refuse(pod_gang, where + " has no podReferences");
    }
    for (const Value& reference : references->GetArray()) {
      const std::string ref_ns = StringAt(reference, {"namespace"});
      const std::string ref_name = StringAt(reference, {"name"});
      if (ref_ns.empty() || ref_name.empty()) {
        return Refuse(pod_gang, where + ": a pod reference needs a namespace and a name");
      }
      if (ref_ns != ns) {
        return Refuse(pod_gang, where + ": pod " + ref_ns + "/" + ref_name +
                                    " is in another namespace than the PodGang");
      }
      if (ref_name == pod_name) gang.pod_sub_group = leaf.name;
    }
    VT_ASSIGN_OR_RETURN(leaf.topology, PackConstraint(pod_gang, pg, topology, where));
    min_member += *replicas;
    leaves.push_back(std::move(leaf));
  }

  for (size_t i = 0; i < configs.size(); ++i) {
    const Value& config = *configs[i];
    const std::string where = "spec.topologyConstraintGroupConfigs[" + std::to_string(i) + "]";
    GangSubGroup parent{.name = StringAt(config, {"name"})};
    if (parent.name.empty()) return Refuse(pod_gang, where + " has no name");
    const auto same_name = [&](const GangSubGroup& g) { return g.name == parent.name; };
    if (std::any_of(leaves.begin(), leaves.end(), same_name) ||
        std::any_of(gang.sub_groups.begin(), gang.sub_groups.end(), same_name)) {
      return Refuse(pod_gang, where + " repeats \"" + parent.name + "\"");
    }
    int32_t children = 0;
    const Value* names = Member(config, "podGroupNames");
    if (names != nullptr && names->IsArray()) {
      for (const Value& name : names->GetArray()) {
        if (!name.IsString()) continue;
        for (GangSubGroup& leaf : leaves) {
          if (leaf.name == name.GetString() && leaf.parent.empty()) {
            leaf.parent = parent.name;
            ++children;
          }
        }
      }
    }
    if (children == 0) continue;
    parent.min_sub_group = children;
    VT_ASSIGN_OR_RETURN(parent.topology, PackConstraint(pod_gang, config, topology, where));
    gang.sub_groups.push_back(std::move(parent));
  }
  gang.sub_groups.insert(gang.sub_groups.end(), leaves.begin(), leaves.end());
  gang.min_member = SpecCount(min_member);
  return gang;
}

}  // namespace vtenant::kai

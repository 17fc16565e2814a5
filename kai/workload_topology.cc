#include "kai/workload_topology.h"

#include <initializer_list>
#include <optional>

#include "kai/names.h"
#include "kai/object_fields.h"

namespace vtenant::kai {

TopologyConstraint WorkloadTopology(const rapidjson::Value& workload) {
  auto annotation = [&](const char* key) {
    return std::string(Annotation(workload, key).value_or(""));
  };
  return {annotation(kTopologyAnnotation), annotation(kTopologyRequiredPlacementAnnotation),
          annotation(kTopologyPreferredPlacementAnnotation)};
}

TopologyConstraint SubGroupTopology(TopologyConstraint named) {
  if (named.topology.empty() || (named.required_level.empty() && named.preferred_level.empty()))
    return {};
  return named;
}

TopologyConstraint TemplateTopology(const rapidjson::Value* pod_template) {
  if (pod_template == nullptr) return {};
  return SubGroupTopology(WorkloadTopology(*pod_template));
}

TopologyConstraint SegmentTopology(const rapidjson::Value& pod,
                                   const rapidjson::Value* worker_template,
                                   const rapidjson::Value& workload) {
  // The first of `objects` with a non-empty `key`.
  const auto first = [](const char* key, std::initializer_list<const rapidjson::Value*> objects) {
    for (const rapidjson::Value* object : objects) {
      if (object == nullptr) continue;
      std::optional<std::string_view> value = Annotation(*object, key);
      if (value && !value->empty()) return std::string(*value);
    }
    return std::string();
  };
  return SubGroupTopology(
      {first(kTopologyAnnotation, {&pod, worker_template, &workload}),
       first(kSegmentTopologyRequiredPlacementAnnotation, {&pod, worker_template}),
       first(kSegmentTopologyPreferredPlacementAnnotation, {&pod, worker_template})});
}

rapidjson::Value TopologyConstraintValue(const TopologyConstraint& constraint,
                                         rapidjson::Document::AllocatorType& a) {
  if (constraint.empty()) return rapidjson::Value();
  rapidjson::Value out(rapidjson::kObjectType);
  for (auto [field, value] : {std::pair{"topology", &constraint.topology},
                              {"requiredTopologyLevel", &constraint.required_level},
                              {"preferredTopologyLevel", &constraint.preferred_level}}) {
    if (value->empty()) continue;
    out.AddMember(
        rapidjson::StringRef(field),
        rapidjson::Value(value->data(), static_cast<rapidjson::SizeType>(value->size()), a), a);
  }
  return out;
}

}  // namespace vtenant::kai

#include "kai/workload_topology.h"

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

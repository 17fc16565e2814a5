#include "syncer/podgroup_fields.h"

#include "syncer/allowlist.h"

namespace vtenant::syncer {
namespace {

const Schema& TopologySchema() {
  static const Schema kSchema =
      Schema().Copy({"topology", "requiredTopologyLevel", "preferredTopologyLevel"});
  return kSchema;
}

const Schema& SubGroupSchema() {
  static const Schema kSchema = Schema()
                                    .Copy({"name", "minMember", "minSubGroup", "parent"})
                                    .Object("topologyConstraint", &TopologySchema());
  return kSchema;
}

const Schema& SpecSchema() {
  static const Schema kSchema =
      Schema()
          .Custom({"minMember", "minSubGroup", "queue", "priorityClassName", "preemptibility",
                   "markUnschedulable", "preemptionDelay", "stalenessGracePeriod"})
          .ArrayOf("subGroups", &SubGroupSchema())
          .Object("topologyConstraint", &TopologySchema());
  return kSchema;
}

}  // namespace

Status TakePodGroupSpec(const rapidjson::Value& pg, Gang& gang) {
  const rapidjson::Value* spec = kube::Find(pg, {"spec"});
  if (spec == nullptr || !spec->IsObject()) return Status::Ok();
  if (const rapidjson::Value* topology = kube::Find(*spec, {"topologyConstraint"});
      topology != nullptr && !topology->IsNull()) {
    if (!topology->IsObject()) {
      return InvalidArgument("spec.topologyConstraint must be an object, got " +
                             kube::ToJson(*topology));
    }
    for (const auto& m : topology->GetObject()) {
      if (!m.value.IsString() && !m.value.IsNull()) {
        return InvalidArgument("spec.topologyConstraint." + std::string(m.name.GetString()) +
                               " must be a string, got " + kube::ToJson(m.value));
      }
    }
  }
  kube::Object kept(rapidjson::kObjectType);
  SpecSchema().Apply(*spec, kept, kept.GetAllocator(), "spec", &gang.dropped);
  gang.sub_groups.clear();
  if (const rapidjson::Value* sub = kube::Find(kept, {"subGroups"})) {
    gang.sub_groups = kube::ToJson(*sub);
  }
  gang.topology_constraint.clear();
  if (const rapidjson::Value* topology = kube::Find(kept, {"topologyConstraint"});
      topology != nullptr && !topology->ObjectEmpty()) {
    gang.topology_constraint = kube::ToJson(*topology);
  }
  return Status::Ok();
}

}  // namespace vtenant::syncer

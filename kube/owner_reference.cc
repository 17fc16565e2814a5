#include "kube/owner_reference.h"

namespace vtenant::kube {

const rapidjson::Value* ControllerReference(const rapidjson::Value& object) {
  const rapidjson::Value* refs = Find(object, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->IsArray()) return nullptr;
  for (const rapidjson::Value& ref : refs->GetArray()) {
    const rapidjson::Value* controller = Find(ref, {"controller"});
    if (controller != nullptr && controller->IsBool() && controller->GetBool()) return &ref;
  }
  return nullptr;
}

OwnerReference ReadOwnerReference(const rapidjson::Value& ref) {
  return {std::string(GetString(ref, {"apiVersion"})), std::string(GetString(ref, {"kind"})),
          std::string(GetString(ref, {"name"})), std::string(GetString(ref, {"uid"}))};
}

OwnerReference ReferenceTo(const rapidjson::Value& object, std::string_view api_version,
                           std::string_view kind) {
  return {std::string(api_version), std::string(kind), std::string(Name(object)),
          std::string(Uid(object))};
}

}  // namespace vtenant::kube

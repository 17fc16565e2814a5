// Owner references (metadata.ownerReferences[]): the one type every
// program uses for "the object this one belongs to", and the one way to
// find an object's controller.
#pragma once

#include <string>

#include "kube/object.h"

namespace vtenant::kube {

// The fields of an owner reference that vtenant reads and writes.
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool operator==(const OwnerReference&) const = default;
};

// The entry of `object`'s metadata.ownerReferences marked controller: true,
// or nullptr when none is (as metav1.GetControllerOf).
const rapidjson::Value* ControllerReference(const rapidjson::Value& object);

// The fields of `ref`, an entry of metadata.ownerReferences; a field that is
// missing or not a string reads as empty.
OwnerReference ReadOwnerReference(const rapidjson::Value& ref);

// A reference to `object` itself, with the apiVersion and kind given (a
// cached object may lack its own).
OwnerReference ReferenceTo(const rapidjson::Value& object, std::string_view api_version,
                           std::string_view kind);

}  // namespace vtenant::kube

#include "kai/preemptibility.h"

#include "kai/names.h"
#include "kai/object_fields.h"

namespace vtenant::kai {

std::string WorkloadPreemptibility(const std::vector<const rapidjson::Value*>& objects) {
  for (const rapidjson::Value* object : objects) {
    if (object == nullptr) continue;
    std::optional<std::string_view> label = Label(*object, kPreemptibilityLabel);
    if (label && IsPreemptibility(*label)) return std::string(*label);
  }
  return "";
}

}  // namespace vtenant::kai

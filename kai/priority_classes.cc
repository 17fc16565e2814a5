#include "kai/priority_classes.h"

#include <limits>

#include "kai/names.h"
#include "kai/object_fields.h"

namespace vtenant::kai {

std::string_view WorkloadPriorityClass(const rapidjson::Value& pod, const rapidjson::Value& top,
                                       std::string_view fallback) {
  const rapidjson::Value* own = MemberAt(pod, {"spec", "priorityClassName"});
  if (own != nullptr && own->IsString() && own->GetStringLength() > 0)
    return {own->GetString(), own->GetStringLength()};
  return Label(top, kPriorityClassLabel)
      .value_or(Label(pod, kPriorityClassLabel).value_or(fallback));
}

Status PriorityClasses::Upsert(const rapidjson::Value& priority_class) {
  const std::string name = StringAt(priority_class, {"metadata", "name"});
  if (name.empty()) return InvalidArgument("a PriorityClass without metadata.name");
  classes_.erase(name);
  const std::optional<int64_t> value = IntAt(priority_class, {"value"});
  if (!value || *value < std::numeric_limits<int32_t>::min() ||
      *value > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("PriorityClass " + name + ": value is not a 32-bit integer");
  }
  const rapidjson::Value* global = Member(priority_class, "globalDefault");
  classes_.emplace(name, Class{.value = static_cast<int32_t>(*value),
                               .global_default = global != nullptr && global->IsTrue()});
  return Status::Ok();
}

void PriorityClasses::Remove(std::string_view name) {
  if (auto it = classes_.find(name); it != classes_.end()) classes_.erase(it);
}

int32_t PriorityClasses::PriorityOf(std::string_view name) const {
  if (auto it = classes_.find(name); it != classes_.end()) return it->second.value;
  for (const auto& [class_name, c] : classes_)
    if (c.global_default) return c.value;
  return kDefaultPodGroupPriority;
}

}  // namespace vtenant::kai

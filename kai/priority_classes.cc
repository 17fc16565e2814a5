#include "kai/priority_classes.h"

#include <limits>

#include "kai/object_fields.h"

namespace vtenant::kai {

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

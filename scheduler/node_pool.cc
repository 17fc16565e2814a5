#include "scheduler/node_pool.h"

namespace vtenant::scheduler {

bool NodePool::Holds(std::optional<std::string_view> found) const {
  if (label_key.empty()) return true;
  return value.empty() ? !found.has_value() : found == std::string_view(value);
}

bool NodePool::Includes(const sched::LabelPairs& labels) const {
  std::optional<std::string_view> found;
  for (const auto& [key, v] : labels)
    if (key == label_key) found = v;
  return Holds(found);
}

bool NodePool::IncludesObject(const rapidjson::Value& object) const {
  return Holds(label_key.empty() ? std::nullopt : kube::Label(object, label_key));
}

}  // namespace vtenant::scheduler

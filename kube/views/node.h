// Node: capacity, GPU labels and health, as the scheduler reads them.
#pragma once

#include <optional>
#include <string_view>

#include "kai/names.h"
#include "kube/quantity.h"
#include "kube/views/object_view.h"

namespace vtenant::kube {

// status.capacity[resource] or status.allocatable[resource] of a node.
std::optional<Quantity> NodeResource(const rapidjson::Value& node, std::string_view field,
                                     std::string_view resource);

template <class Base>
class NodeAccessors : public Base {
 public:
  using Base::Base;

  std::optional<Quantity> capacity(std::string_view resource) const {
    return NodeResource(this->json(), "capacity", resource);
  }
  std::optional<Quantity> allocatable(std::string_view resource) const {
    return NodeResource(this->json(), "allocatable", resource);
  }
  // Whole GPUs the device plugin advertises (nvidia.com/gpu allocatable).
  int64_t gpu_count() const {
    std::optional<Quantity> gpus = allocatable(kai::kGpuResource);
    return gpus ? gpus->Value() : 0;
  }
  // GPU feature discovery's labels: memory per GPU in MiB, and the model.
  std::optional<int64_t> gpu_memory_mib() const;
  std::string_view gpu_product() const { return this->label(kai::kGpuProductLabel).value_or(""); }
  bool unschedulable() const {
    const rapidjson::Value* u = Find(this->json(), {"spec", "unschedulable"});
    return u != nullptr && u->IsTrue();
  }
  // The Ready condition is True.
  bool ready() const;
};

using NodeView = NodeAccessors<ObjectView>;
using MutableNode = NodeAccessors<MutableObjectView>;

template <class Base>
std::optional<int64_t> NodeAccessors<Base>::gpu_memory_mib() const {
  std::optional<std::string_view> label = this->label(kai::kGpuMemoryLabel);
  if (!label || label->empty()) return std::nullopt;
  int64_t value = 0;
  for (char c : *label) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

template <class Base>
bool NodeAccessors<Base>::ready() const {
  const rapidjson::Value* conditions = Find(this->json(), {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const rapidjson::Value& c : conditions->GetArray()) {
    if (GetString(c, {"type"}) == "Ready") return GetString(c, {"status"}) == "True";
  }
  return false;
}

}  // namespace vtenant::kube

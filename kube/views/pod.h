// Pod: the fields the syncer and the scheduler read and write.
#pragma once

#include <optional>
#include <string_view>

#include "kai/names.h"
#include "kube/quantity.h"
#include "kube/views/object_view.h"

namespace vtenant::kube {

// The effective request or limit of a pod for one resource, as the
// scheduler counts it: the sum over its app containers, or the largest
// init container's if that is more. Absent when no container names it.
// `field` is "requests" or "limits". Unparsable values are skipped.
std::optional<Quantity> PodResource(const rapidjson::Value& pod, std::string_view field,
                                    std::string_view resource);

template <class Base>
class PodAccessors : public Base {
 public:
  using Base::Base;

  std::string_view node_name() const { return GetString(this->json(), {"spec", "nodeName"}); }
  std::string_view scheduler_name() const {
    return GetString(this->json(), {"spec", "schedulerName"});
  }
  std::string_view service_account_name() const {
    return GetString(this->json(), {"spec", "serviceAccountName"});
  }
  std::string_view priority_class_name() const {
    return GetString(this->json(), {"spec", "priorityClassName"});
  }
  // Pending, Running, Succeeded, Failed, Unknown ("" before the first status).
  std::string_view phase() const { return GetString(this->json(), {"status", "phase"}); }
  bool finished() const { return phase() == "Succeeded" || phase() == "Failed"; }
  // Terminating pods still hold their node's resources until they are gone.
  bool terminating() const { return this->being_deleted(); }
  bool scheduled() const { return !node_name().empty(); }
  std::optional<Quantity> request(std::string_view resource) const {
    return PodResource(this->json(), "requests", resource);
  }
  std::optional<Quantity> limit(std::string_view resource) const {
    return PodResource(this->json(), "limits", resource);
  }
  // KAI's queue label.
  std::optional<std::string_view> queue() const { return this->label(kai::kQueueLabel); }
  // KAI's GPU-sharing annotations, as written (kai/gpu_request.h validates).
  std::optional<std::string_view> gpu_fraction() const {
    return this->annotation(kai::kGpuFractionAnnotation);
  }
  std::optional<std::string_view> gpu_memory() const {
    return this->annotation(kai::kGpuMemoryAnnotation);
  }
  std::optional<std::string_view> pod_group_name() const {
    return this->annotation(kai::kPodGroupAnnotation);
  }
};

using PodView = PodAccessors<ObjectView>;

class MutablePod : public PodAccessors<MutableObjectView> {
 public:
  using PodAccessors::PodAccessors;

  void SetNodeName(std::string_view node) { SetString(doc(), {"spec"}, "nodeName", node); }
  void ClearNodeName() { RemoveMember(doc(), {"spec"}, "nodeName"); }
  void SetSchedulerName(std::string_view name) {
    SetString(doc(), {"spec"}, "schedulerName", name);
  }
  void SetQueue(std::string_view queue) { SetLabel(kai::kQueueLabel, queue); }
};

}  // namespace vtenant::kube

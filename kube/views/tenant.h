// vtenant's Tenant (vtenant.io/v1alpha1): one team's virtual cluster and
// queue, as the operator and the CLI read it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/views/object_view.h"
#include "kube/views/queue.h"

namespace vtenant::kube {

template <class Base>
class TenantAccessors : public Base {
 public:
  using Base::Base;

  std::string_view display_name() const { return GetString(this->json(), {"spec", "displayName"}); }
  std::string_view parent_queue() const {
    return GetString(this->json(), {"spec", "queue", "parentQueue"});
  }
  int64_t queue_priority() const {
    return GetInt(this->json(), {"spec", "queue", "priority"}, 100);
  }
  // "gpu", "cpu" or "memory" of spec.queue.resources, with KAI's defaults.
  QueueResourceSpec queue_resource(std::string_view name) const {
    return ReadQueueResource(Find(this->json(), {"spec", "queue", "resources", name}));
  }
  // "process" or "statefulset"; "" when unset (the operator's default applies).
  std::string_view backend() const {
    return GetString(this->json(), {"spec", "controlPlane", "backend"});
  }
  std::string_view kubernetes_version() const {
    return GetString(this->json(), {"spec", "controlPlane", "kubernetesVersion"});
  }
  // spec.isolation.allowedPrivilegedFeatures.
  std::vector<std::string> allowed_privileged_features() const {
    std::vector<std::string> out;
    const rapidjson::Value* list =
        Find(this->json(), {"spec", "isolation", "allowedPrivilegedFeatures"});
    if (list == nullptr || !list->IsArray()) return out;
    for (const rapidjson::Value& f : list->GetArray()) {
      if (f.IsString()) out.emplace_back(f.GetString(), f.GetStringLength());
    }
    return out;
  }
  const rapidjson::Value* node_selector() const {
    return Find(this->json(), {"spec", "isolation", "nodeSelector"});
  }
  const rapidjson::Value* tolerations() const {
    return Find(this->json(), {"spec", "isolation", "tolerations"});
  }
  bool network_policy_enabled() const {
    const rapidjson::Value* enabled =
        Find(this->json(), {"spec", "isolation", "networkPolicy", "enabled"});
    return enabled == nullptr || !enabled->IsFalse();
  }

  std::string_view phase() const { return GetString(this->json(), {"status", "phase"}); }
  std::string_view host_namespace() const {
    return GetString(this->json(), {"status", "hostNamespace"});
  }
  std::string_view endpoint() const { return GetString(this->json(), {"status", "endpoint"}); }
  std::string_view kubeconfig_secret() const {
    return GetString(this->json(), {"status", "kubeconfigSecret"});
  }
  int64_t observed_generation() const {
    return GetInt(this->json(), {"status", "observedGeneration"});
  }
};

using TenantView = TenantAccessors<ObjectView>;
using MutableTenant = TenantAccessors<MutableObjectView>;

// The host namespace of tenant `name`: vtenant-<name>.
inline std::string TenantNamespace(std::string_view name) { return "vtenant-" + std::string(name); }
// The kubeconfig Secret of tenant `name`: vc-<name>, key "config", as vCluster names it.
inline std::string TenantKubeconfigSecret(std::string_view name) {
  return "vc-" + std::string(name);
}

}  // namespace vtenant::kube

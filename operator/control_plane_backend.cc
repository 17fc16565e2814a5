#include "operator/control_plane_backend.h"

namespace vtenant::op {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace

std::vector<std::string> SyncerPolicyArgs(const ControlPlaneRequest& r) {
  const IsolationSpec& iso = r.spec.isolation;
  std::vector<std::string> selector;
  for (const auto& [k, v] : iso.node_selector) selector.push_back(k + "=" + v);
  return {
      "--scheduler-name=" + r.scheduler_name,
      "--pod-security=" + iso.pod_security,
      "--allowed-privileged-features=" + Join(iso.allowed_privileged_features),
      "--node-selector=" + Join(selector),
      "--tolerations=" + iso.tolerations_json,
      "--allowed-tolerations=" + iso.allowed_tolerations_json,
      "--allowed-runtime-classes=" + Join(iso.allowed_runtime_classes),
      "--allowed-volume-types=" +
          Join(iso.allowed_volume_types.empty() ? DefaultVolumeTypes() : iso.allowed_volume_types),
      "--allowed-csi-drivers=" + Join(iso.allowed_csi_drivers),
      "--allowed-priority-classes=" + Join(r.allowed_priority_classes),
      "--allowed-service-types=" + Join(iso.allowed_service_types)};
}

std::vector<std::string> VirtualClusterControllers() {
  return {"serviceaccount-controller",
          "serviceaccount-token-controller",
          "namespace-controller",
          "garbage-collector-controller",
          "replicaset-controller",
          "deployment-controller",
          "statefulset-controller",
          "job-controller",
          "cronjob-controller",
          "ttl-after-finished-controller",
          "endpoints-controller",
          "endpointslice-controller",
          "disruption-controller",
          "pod-garbage-collector-controller",
          "resourcequota-controller",
          "root-ca-certificate-publisher-controller",
          "clusterrole-aggregation-controller",
          "persistentvolumeclaim-protection-controller"};
}

}  // namespace vtenant::op

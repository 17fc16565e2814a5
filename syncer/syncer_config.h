// SyncerConfig: what one tenant's syncer enforces and where it writes,
// from its flags (see main.cc) or built directly by tests.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/object.h"

namespace vtenant::syncer {

// Pod features a tenant may be allowed (Tenant spec.isolation.allowedPrivilegedFeatures).
inline const std::set<std::string, std::less<>>& KnownPrivilegedFeatures() {
  static const std::set<std::string, std::less<>> kFeatures = {
      "hostPath", "hostNetwork", "hostPID", "hostIPC", "privileged", "capabilities"};
  return kFeatures;
}

struct SyncerConfig {
  std::string tenant;          // "nlp"
  std::string queue;           // KAI queue every host pod is charged to
  std::string host_namespace;  // "vtenant-nlp"
  std::set<std::string, std::less<>> allowed_privileged_features;
  // Enforced on every host pod: merged over the pod's own node selector
  // (the tenant's value wins) and appended to its tolerations.
  std::map<std::string, std::string> node_selector;
  kube::Object tolerations = kube::Object(rapidjson::kArrayType);
  // What pods get as KUBERNETES_SERVICE_HOST/PORT: the virtual API server
  // as seen from the host network. Empty host: the variables are not set.
  std::string virtual_service_host;
  int virtual_service_port = 443;
  // Host priority classes a pod may name; any other non-system class is
  // refused (KAI derives preemptibility from the class).
  std::set<std::string, std::less<>> allowed_priority_classes = {"train", "build", "inference"};
  // Service types the tenant's Services may have; ClusterIP always.
  std::set<std::string, std::less<>> allowed_service_types = {"ClusterIP"};
  // Copy the Endpoints and hand-written EndpointSlices of selector-less
  // Services to the host. Off unless asked for: the host credentials must
  // then allow endpoints (get, list, watch, create, update, delete) and
  // discovery.k8s.io endpointslices (list, watch, create, update, delete)
  // in the host namespace, or the syncer's caches never fill.
  bool sync_endpoints = false;

  SyncerConfig() = default;
  SyncerConfig(const SyncerConfig& other) { *this = other; }
  SyncerConfig& operator=(const SyncerConfig& other);
};

// "hostPath,privileged" → the set. InvalidArgument naming an unknown feature.
Result<std::set<std::string, std::less<>>> ParsePrivilegedFeatures(std::string_view text);

// "NodePort" → {ClusterIP, NodePort}: ClusterIP is always allowed.
// InvalidArgument for a type other than ClusterIP, NodePort, LoadBalancer.
Result<std::set<std::string, std::less<>>> ParseServiceTypes(std::string_view text);

// "k=v,k2=v2" → the map. InvalidArgument for an entry without "=" or key.
Result<std::map<std::string, std::string>> ParseNodeSelector(std::string_view text);

// A JSON array of tolerations ('[{"key":"dedicated","operator":"Equal",
// "value":"nlp","effect":"NoSchedule"}]'); "" is none. InvalidArgument
// when it is not an array of objects.
Result<kube::Object> ParseTolerations(std::string_view text);

}  // namespace vtenant::syncer

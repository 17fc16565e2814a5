// SyncerConfig: what one tenant's syncer enforces and where it writes,
// from its flags (flags.h; cluster_dns from SyncerApp) or built by tests.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/ip_address.h"
#include "base/status.h"
#include "kube/object.h"

namespace vtenant::syncer {

// The names of syncer/isolation_vocabulary.h, as sets.
const std::set<std::string, std::less<>>& KnownPrivilegedFeatures();
const std::set<std::string, std::less<>>& KnownVolumeTypes();
const std::set<std::string, std::less<>>& DefaultVolumeTypes();

// The Pod Security Standards level the syncer holds every pod to
// (spec.isolation.podSecurity).
enum class PodSecurityLevel { kBaseline, kRestricted };

// One entry of spec.isolation.allowedTolerations: a pod toleration of
// `key` passes when it asks for no more than this entry allows (see
// pod_tolerations.h).
struct AllowedToleration {
  std::string key;      // never empty
  bool exists = false;  // operator Exists: any value of the key
  std::string value;    // operator Equal: this value only
  std::string effect;   // "": any effect
  bool operator==(const AllowedToleration&) const = default;
};

struct SyncerConfig {
  std::string tenant;          // "nlp"
  std::string queue;           // KAI queue every host pod is charged to
  std::string host_namespace;  // "vtenant-nlp"
  // The host's vtenant scheduler: every host pod's schedulerName, whatever
  // the virtual pod asked for, so no pod (and no GPU) leaves the queues.
  std::string scheduler_name = "kai-scheduler";
  PodSecurityLevel pod_security = PodSecurityLevel::kBaseline;
  std::set<std::string, std::less<>> allowed_privileged_features;
  // Enforced on every host pod: merged over the pod's own node selector
  // (the tenant's value wins) and appended to its tolerations.
  std::map<std::string, std::string> node_selector;
  kube::Object tolerations = kube::Object(rapidjson::kArrayType);
  // The tolerations a pod may carry itself; others are left off the host
  // pod (with a Warning Event on the virtual one).
  std::vector<AllowedToleration> allowed_tolerations;
  // spec.runtimeClassName only from this list; none by default.
  std::set<std::string, std::less<>> allowed_runtime_classes;
  // Pod volume types allowed (hostPath and csi aside, see KnownVolumeTypes).
  std::set<std::string, std::less<>> allowed_volume_types = DefaultVolumeTypes();
  // Drivers of inline csi volumes; none by default.
  std::set<std::string, std::less<>> allowed_csi_drivers;
  // Host DeviceClasses the tenant's ResourceClaims may ask for; none by
  // default, and then pods that name claims are refused and claims are
  // neither watched nor copied (the host credentials need no rights on
  // resource.k8s.io). Set: the host credentials must allow
  // resourceclaims and resourceclaimtemplates (list, watch, create,
  // update, delete) in the host namespace.
  std::set<std::string, std::less<>> allowed_device_classes;
  // What pods get as KUBERNETES_SERVICE_HOST/PORT: the virtual API server
  // as seen from the host network. Empty host: the variables are not set.
  std::string virtual_service_host;
  int virtual_service_port = 443;
  // The virtual cluster's DNS server as pods reach it on port 53 (the
  // cluster IP of the host Service in front of the syncer's DNS, see
  // cluster_dns_service.h). Set: pods that ask for the cluster's DNS get it
  // (dnsPolicy None with its dnsConfig). Empty: dnsPolicy as the pod says.
  std::string cluster_dns;
  // Host priority classes a pod may name, as the operator found them on the
  // host (the Tenant's list, or every non-system class); any other
  // non-system class is refused (KAI derives preemptibility from the class).
  std::set<std::string, std::less<>> allowed_priority_classes;
  // Service types the tenant's Services may have; ClusterIP always.
  std::set<std::string, std::less<>> allowed_service_types = {"ClusterIP"};
  // The host's Service range, which the virtual API server shares (the
  // operator starts it with the host's). Set: a virtual Service's cluster IP
  // in the range's dynamic band is asked for on its host copy, so that both
  // sides have one address without the virtual Service being created again
  // (service_translator.h). Unset: the host always picks.
  std::optional<IpRange> service_range;
  // Copy the Endpoints and hand-written EndpointSlices of selector-less
  // Services to the host. Off unless asked for: the host credentials must
  // then allow endpoints (list, watch, create, update, delete) and
  // discovery.k8s.io endpointslices (list, watch, create, update, delete)
  // in the host namespace, or the syncer's caches never fill.
  bool sync_endpoints = false;
  // Where the virtual API server reaches the kubelet of every virtual Node:
  // the syncer's kubelet endpoint (kubelet_server.h), given as each mirrored
  // Node's only address (InternalIP) and its kubeletEndpoint port. Empty:
  // virtual Nodes carry the host node's addresses, and logs and exec in the
  // team's cluster do not work.
  std::string kubelet_address;
  int kubelet_port = 0;

  SyncerConfig() = default;
  SyncerConfig(const SyncerConfig& other) { *this = other; }
  SyncerConfig& operator=(const SyncerConfig& other);
};

// "hostPath,privileged" → the set. InvalidArgument naming an unknown feature.
Result<std::set<std::string, std::less<>>> ParsePrivilegedFeatures(std::string_view text);

// "baseline" or "restricted". InvalidArgument otherwise.
Result<PodSecurityLevel> ParsePodSecurityLevel(std::string_view text);

// "a,b" → {a, b}; blanks around names and empty items are ignored.
std::set<std::string, std::less<>> ParseNameList(std::string_view text);

// "nfs,image" → the set; "" is DefaultVolumeTypes(). InvalidArgument naming
// a type KnownVolumeTypes() lacks.
Result<std::set<std::string, std::less<>>> ParseVolumeTypes(std::string_view text);

// "NodePort" → {ClusterIP, NodePort}: ClusterIP is always allowed.
// InvalidArgument for a type other than ClusterIP, NodePort, LoadBalancer.
Result<std::set<std::string, std::less<>>> ParseServiceTypes(std::string_view text);

// A JSON array of allowlist entries ('[{"key":"dedicated","operator":
// "Equal","value":"nlp","effect":"NoSchedule"}]'); "" is none.
// InvalidArgument when an entry has no key, an operator other than Exists
// or Equal (default Equal), a value with Exists, an unknown effect, or a
// member it does not know.
Result<std::vector<AllowedToleration>> ParseAllowedTolerations(std::string_view text);

// "k=v,k2=v2" → the map. InvalidArgument for an entry without "=" or key.
Result<std::map<std::string, std::string>> ParseNodeSelector(std::string_view text);

// A JSON array of tolerations ('[{"key":"dedicated","operator":"Equal",
// "value":"nlp","effect":"NoSchedule"}]'); "" is none. InvalidArgument
// when it is not an array of objects.
Result<kube::Object> ParseTolerations(std::string_view text);

}  // namespace vtenant::syncer

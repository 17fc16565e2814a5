// Tenant: the typed spec of a vtenant.io/v1alpha1 Tenant, and the checks the
// CRD's schema and CEL rules cannot make.
//
// The API server already refuses what the schema says (types, enums, quota
// above limit, names that are not DNS labels); ParseTenant checks the same
// again because the operator must not trust a CRD that was installed by hand
// or an older chart, and it adds what only the operator knows (the default
// backend).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/object.h"
#include "syncer/names.h"

namespace vtenant::op {

// One resource of a KAI queue, in KAI's units (GPU devices, CPU millicores,
// memory MB). -1 is unlimited.
struct ResourceShare {
  double quota = -1;
  double limit = -1;
  double over_quota_weight = 1;
};

struct QueueSpec {
  std::string parent_queue;  // empty: top-level queue
  int64_t priority = 100;
  ResourceShare gpu{.quota = 0};
  ResourceShare cpu;
  ResourceShare memory;
};

enum class Backend { kProcess, kStatefulSet };
std::string_view BackendName(Backend backend);
// "process" or "statefulset"; InvalidArgument otherwise.
Result<Backend> ParseBackend(std::string_view name);

struct ControlPlaneSpec {
  Backend backend = Backend::kProcess;
  bool backend_defaulted = true;   // spec left it empty; the operator's default applies
  std::string kubernetes_version;  // empty: the operator's default
  std::string storage_size = "5Gi";
  // Container resources as written ("200m", "512Mi").
  std::map<std::string, std::string> requests;
  std::map<std::string, std::string> limits;
};

// spec.isolation: what the tenant's pods may ask of the host. The syncer
// enforces it (its flags carry every field but networkPolicy, which the
// operator enforces with the host namespace's NetworkPolicies); the host
// namespace's Pod Security Admission labels follow pod_security.
struct IsolationSpec {
  // The Pod Security Standards level the tenant's pods are held to:
  // "baseline" (the default) or "restricted".
  std::string pod_security = "baseline";
  std::vector<std::string> allowed_privileged_features;
  std::map<std::string, std::string> node_selector;
  std::string tolerations_json = "[]";          // the array as written, for the syncer's flag
  std::string allowed_tolerations_json = "[]";  // likewise
  std::vector<std::string> allowed_runtime_classes;
  std::vector<std::string> allowed_volume_types;  // empty: DefaultVolumeTypes()
  std::vector<std::string> allowed_csi_drivers;
  // Host DeviceClasses the team's ResourceClaims may ask for; empty: pods
  // that name claims are refused.
  std::vector<std::string> allowed_device_classes;
  // Empty: every PriorityClass of the host not named system-*. Either way
  // only classes the host really has reach the syncer
  // (AllowedPriorityClasses).
  std::vector<std::string> allowed_priority_classes;
  std::vector<std::string> allowed_service_types = {"ClusterIP"};  // ClusterIP always among them
  bool network_policy = true;
};

// The exceptions to the Pod Security level a Tenant may allow, and the
// volume types it may name: the syncer's words (syncer/isolation_vocabulary.h;
// the CRD's enums say the same).
const std::vector<std::string>& KnownPrivilegedFeatures();
const std::vector<std::string>& KnownVolumeTypes();
// The volume types of a Tenant that names none.
const std::vector<std::string>& DefaultVolumeTypes();

// The host priority classes a tenant's pods may name: of `host_classes`
// (the names of the host's PriorityClasses), those `spec` allows (its
// allowedPriorityClasses, or when it names none every class not named
// system-*), sorted.
std::vector<std::string> AllowedPriorityClasses(const IsolationSpec& spec,
                                                const std::vector<std::string>& host_classes);

struct TenantSpec {
  std::string name;
  std::string display_name;
  std::vector<std::string> admin_users;
  std::vector<std::string> admin_groups;
  QueueSpec queue;
  ControlPlaneSpec control_plane;
  IsolationSpec isolation;
};

// The names every component derives from a tenant's name (the operator,
// the syncer and the CLI spell them alike; docs/architecture.md). Inline,
// so that the CLI takes them from here without linking the operator.
inline std::string HostNamespace(std::string_view tenant) {  // vtenant-<t>
  return "vtenant-" + std::string(tenant);
}
inline std::string KubeconfigSecretName(std::string_view tenant) {  // vc-<t>
  return "vc-" + std::string(tenant);
}
// The StatefulSet backend's control plane: its StatefulSet and Service,
// and the DNS name the API server's certificate carries.
inline std::string ControlPlaneName(std::string_view tenant) {  // vc-<t>
  return "vc-" + std::string(tenant);
}
inline std::string CertificateSecretName(std::string_view tenant) {  // vc-<t>-certs
  return "vc-" + std::string(tenant) + "-certs";
}
inline constexpr char kKubeconfigKey[] = "config";
// The syncer's label (syncer/names.h): objects of a tenant carry the same
// key whichever program wrote them.
inline constexpr const auto& kTenantLabel = syncer::kTenantLabel;
inline constexpr char kBackendAnnotation[] = "vtenant.io/backend";
inline constexpr char kFinalizer[] = "vtenant.io/tenant-cleanup";

// Namespaces no Tenant may take as its host namespace whatever the
// deployment: the cluster's own and those vtenant's chart and scheduler use
// by default. (HostNamespace prefixes "vtenant-", so only the latter can
// come up from a name; the rest is a second line.)
inline constexpr std::string_view kReservedNamespaces[] = {
    "kube-system", "kube-public",    "kube-node-lease",
    "default",     "vtenant-system", "vtenant-reservation"};

// OK unless host namespace `ns` is reserved: one of kReservedNamespaces or
// of `also_reserved` (the namespaces this deployment runs vtenant in: the
// operator's own, the scheduler's reservation namespace). InvalidArgument
// saying whose it is.
Status CheckNamespaceNotReserved(std::string_view ns,
                                 const std::vector<std::string>& also_reserved = {});

// Whether `name` may name a Tenant: a DNS label short enough that
// vtenant-<name> is one too, whose host namespace is not reserved. The
// error says what is wrong with it.
Status ValidateTenantName(std::string_view name);

// The Pod Security Admission labels of a tenant's host namespace, so the
// host refuses what the syncer should never have passed: enforce the
// spec's level, or "privileged" when the Tenant allows exceptions to it
// (the syncer enforces those one by one; "gpuDevices" is none); warn and
// audit the level either way.
std::map<std::string, std::string> PodSecurityLabels(const IsolationSpec& isolation);

// Reads and validates a Tenant object. `default_backend` applies when
// spec.controlPlane.backend is empty. kubernetesVersion and the control
// plane's storage size and resources are taken as written, not checked
// here. Every problem found is listed in the
// InvalidArgument message ("spec.queue.resources.gpu: quota 2 exceeds limit
// 1; ..."), so one status update tells the admin everything.
Result<TenantSpec> ParseTenant(const rapidjson::Value& tenant, Backend default_backend);

// Refuses changes the operator cannot carry out in place: `current` is the
// backend the control plane was built with (from the host namespace). The
// error names the field and what to do instead.
Status CheckImmutable(const TenantSpec& spec, Backend current);

// The GPU quota of a parent queue against the sum of its children's quotas.
struct QuotaCheck {
  bool overcommitted = false;
  std::string message;  // says the numbers either way
};

// `parent_gpu_quota` -1 (unlimited) never overcommits. `children` maps each
// child queue (this tenant's included, with its desired quota) to its GPU
// quota; unlimited children (-1) count as overcommitting a limited parent.
// The sums are compared in thousandths of a GPU, as the scheduler counts,
// so 3 x 0.33 under 1 is not a rounding accident.
QuotaCheck CheckChildrenQuota(std::string_view parent, double parent_gpu_quota,
                              const std::map<std::string, double>& children);

}  // namespace vtenant::op

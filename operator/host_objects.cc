#include "operator/host_objects.h"

#include <cmath>

#include "kube/base64.h"
#include "kube/json_builder.h"
#include "kube/kubeconfig.h"
#include "operator/ensure_object.h"

namespace vtenant::op {

namespace {

// The labels of everything the operator makes for a tenant, and of what it
// makes for no one tenant (ensure_object.h: how it knows its own).
kube::JsonObject OwnedLabels(const TenantSpec& spec) {
  return {{kTenantLabel, spec.name}, {kManagedByLabel, kManagedByOperator}};
}
kube::JsonObject SharedLabels() { return {{kManagedByLabel, kManagedByOperator}}; }

kube::JsonObject Meta(const TenantSpec& spec, std::string_view name, bool namespaced) {
  kube::JsonObject meta{{"name", name}};
  if (namespaced) meta.Set("namespace", HostNamespace(spec.name));
  meta.Set("labels", OwnedLabels(spec));
  return meta;
}

// A quota figure as KAI's Queues write it: a whole number as an integer
// (-1 is "unlimited"), any other as a decimal.
kube::JsonValue QuotaNumber(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return static_cast<int64_t>(v);
  return v;
}

kube::JsonObject Share(const ResourceShare& s) {
  return {{"quota", QuotaNumber(s.quota)},
          {"limit", QuotaNumber(s.limit)},
          {"overQuotaWeight", QuotaNumber(s.over_quota_weight)}};
}

}  // namespace

std::string SyncerNodeReaderBinding(std::string_view tenant) {
  return "vtenant:syncer:" + std::string(tenant);
}
std::string KubeconfigReaderRole(std::string_view tenant) {
  return "vc-" + std::string(tenant) + "-kubeconfig-reader";
}

kube::Object RenderNamespace(const TenantSpec& spec) {
  std::map<std::string, std::string> labels = PodSecurityLabels(spec.isolation);
  labels[kTenantLabel] = spec.name;
  labels[kManagedByLabel] = kManagedByOperator;
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Namespace"},
      {"metadata",
       kube::JsonObject{
           {"name", HostNamespace(spec.name)},
           {"labels", kube::StringMap(labels)},
           {"annotations",
            kube::JsonObject{{kBackendAnnotation, BackendName(spec.control_plane.backend)}}}}}});
}

kube::Object RenderCertificateSecret(const TenantSpec& spec, const TenantCertificates& certs,
                                     const std::string& ns) {
  kube::JsonObject data;
  for (const auto& [key, value] : CertificateSecretData(certs))
    data.Set(key, kube::EncodeBase64(value));
  return kube::BuildJson(
      kube::JsonObject{{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata", kube::JsonObject{{"name", CertificateSecretName(spec.name)},
                                                     {"namespace", ns},
                                                     {"labels", OwnedLabels(spec)}}},
                       {"type", "Opaque"},
                       {"data", std::move(data)}});
}

kube::Object RenderKubeconfigSecret(const TenantSpec& spec, const TenantCertificates& certs,
                                    const std::string& endpoint) {
  kube::RestConfig config;
  config.server = endpoint;
  config.ca_pem = certs.ca.certificate_pem;
  config.client_certificate_pem = certs.tenant_admin.certificate_pem;
  config.client_key_pem = certs.tenant_admin.private_key_pem;
  kube::JsonObject meta{{"name", KubeconfigSecretName(spec.name)},
                        {"namespace", HostNamespace(spec.name)},
                        {"labels", OwnedLabels(spec)}};
  if (!certs.rotation.empty()) {
    meta.Set("annotations", kube::JsonObject{{kCredentialsRotationAnnotation, certs.rotation}});
  }
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", std::move(meta)},
      {"type", "Opaque"},
      {"data", kube::JsonObject{{kKubeconfigKey,
                                 kube::EncodeBase64(kube::RenderKubeconfig(config, spec.name))}}}});
}

kube::Object RenderSyncerServiceAccount(const TenantSpec& spec) {
  return kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                          {"kind", "ServiceAccount"},
                                          {"metadata", Meta(spec, kSyncerServiceAccount, true)}});
}

namespace {

kube::JsonObject ClusterRoleRef(std::string_view name) {
  return {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}};
}

// A RoleBinding or ClusterRoleBinding (`kind`) of ClusterRole `role` to one
// `subject`: the form of every binding here but the kubeconfig reader's
// (a Role, to the Tenant's admins).
kube::Object Binding(std::string_view kind, kube::JsonObject metadata, std::string_view role,
                     kube::JsonObject subject) {
  return kube::BuildJson(kube::JsonObject{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                                          {"kind", kind},
                                          {"metadata", std::move(metadata)},
                                          {"roleRef", ClusterRoleRef(role)},
                                          {"subjects", kube::JsonArray{std::move(subject)}}});
}

kube::JsonObject SyncerSubject(const TenantSpec& spec) {
  return {{"kind", "ServiceAccount"},
          {"name", kSyncerServiceAccount},
          {"namespace", HostNamespace(spec.name)}};
}

}  // namespace

kube::Object RenderOperatorRoleBinding(const TenantSpec& spec, const RbacSubject& self) {
  kube::JsonObject subject{{"kind", self.kind}, {"name", self.name}};
  if (self.kind == "ServiceAccount") {
    subject.Set("namespace", self.ns);
  } else {
    subject.Set("apiGroup", "rbac.authorization.k8s.io");
  }
  return Binding("RoleBinding", Meta(spec, kOperatorRoleBinding, true), kOperatorTenantRole,
                 std::move(subject));
}

kube::Object RenderSyncerRoleBinding(const TenantSpec& spec) {
  return Binding("RoleBinding", Meta(spec, kSyncerRoleBinding, true), kSyncerRole,
                 SyncerSubject(spec));
}

kube::Object RenderSyncerNodeReaderBinding(const TenantSpec& spec) {
  return Binding("ClusterRoleBinding", Meta(spec, SyncerNodeReaderBinding(spec.name), false),
                 kSyncerNodeReaderRole, SyncerSubject(spec));
}

kube::Object RenderKubeconfigReaderRole(const TenantSpec& spec) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "Role"},
      {"metadata", Meta(spec, KubeconfigReaderRole(spec.name), true)},
      {"rules", kube::JsonArray{kube::JsonObject{
                    {"apiGroups", kube::JsonArray{""}},
                    {"resources", kube::JsonArray{"secrets"}},
                    {"resourceNames", kube::JsonArray{KubeconfigSecretName(spec.name)}},
                    {"verbs", kube::JsonArray{"get"}}}}}});
}

kube::Object RenderKubeconfigReaderBinding(const TenantSpec& spec) {
  kube::JsonArray subjects;
  for (const auto& [kind, names] :
       {std::pair<const char*, const std::vector<std::string>&>{"User", spec.admin_users},
        {"Group", spec.admin_groups}}) {
    for (const std::string& name : names) {
      subjects.Add(kube::JsonObject{
          {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", name}});
    }
  }
  return kube::BuildJson(
      kube::JsonObject{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                       {"kind", "RoleBinding"},
                       {"metadata", Meta(spec, KubeconfigReaderRole(spec.name), true)},
                       {"roleRef", kube::JsonObject{{"apiGroup", "rbac.authorization.k8s.io"},
                                                    {"kind", "Role"},
                                                    {"name", KubeconfigReaderRole(spec.name)}}},
                       {"subjects", std::move(subjects)}});
}

namespace {

// The address ranges a cluster's own networks use: private (RFC 1918, IPv6
// unique local), shared (RFC 6598), link-local (cloud metadata services
// live there) and loopback.
kube::JsonArray OutsideTheCluster() {
  return kube::JsonArray{
      kube::JsonObject{
          {"ipBlock",
           kube::JsonObject{
               {"cidr", "0.0.0.0/0"},
               {"except", kube::JsonArray{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
                                          "100.64.0.0/10", "169.254.0.0/16", "127.0.0.0/8"}}}}},
      kube::JsonObject{
          {"ipBlock",
           kube::JsonObject{{"cidr", "::/0"},
                            {"except", kube::JsonArray{"fc00::/7", "fe80::/10", "::1/128"}}}}}};
}

}  // namespace

kube::Object RenderNetworkPolicy(const TenantSpec& spec) {
  const kube::JsonObject same_namespace{{"podSelector", kube::JsonObject{}}};
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "networking.k8s.io/v1"},
      {"kind", "NetworkPolicy"},
      {"metadata", Meta(spec, kNetworkPolicyName, true)},
      {"spec", kube::JsonObject{
                   {"podSelector", kube::JsonObject{}},
                   {"policyTypes", kube::JsonArray{"Ingress", "Egress"}},
                   {"ingress",
                    kube::JsonArray{kube::JsonObject{{"from", kube::JsonArray{same_namespace}}}}},
                   {"egress",
                    kube::JsonArray{
                        kube::JsonObject{{"to", kube::JsonArray{same_namespace}}},
                        kube::JsonObject{
                            {"ports",
                             kube::JsonArray{kube::JsonObject{{"protocol", "UDP"}, {"port", 53}},
                                             kube::JsonObject{{"protocol", "TCP"}, {"port", 53}}}}},
                        kube::JsonObject{{"to", OutsideTheCluster()}}}}}}});
}

kube::Object RenderControlPlaneNetworkPolicy(const TenantSpec& spec,
                                             std::string_view operator_namespace) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "networking.k8s.io/v1"},
      {"kind", "NetworkPolicy"},
      {"metadata", Meta(spec, kControlPlaneNetworkPolicyName, true)},
      {"spec",
       kube::JsonObject{
           {"podSelector",
            kube::JsonObject{
                {"matchLabels", kube::JsonObject{{kComponentLabel, kControlPlaneComponent}}},
                {"matchExpressions",
                 kube::JsonArray{kube::JsonObject{{"key", kSyncerManagedByLabel},
                                                  {"operator", "DoesNotExist"}}}}}},
           {"policyTypes", kube::JsonArray{"Ingress", "Egress"}},
           {"ingress",
            kube::JsonArray{kube::JsonObject{
                {"from", kube::JsonArray{kube::JsonObject{
                             {"namespaceSelector",
                              kube::JsonObject{
                                  {"matchLabels", kube::JsonObject{{"kubernetes.io/metadata.name",
                                                                    operator_namespace}}}}}}}},
                {"ports",
                 kube::JsonArray{kube::JsonObject{{"protocol", "TCP"}, {"port", 6443}}}}}}},
           {"egress", kube::JsonArray{kube::JsonObject{}}}}}});
}

kube::Object RenderQueue(const TenantSpec& spec) {
  const QueueSpec& q = spec.queue;
  kube::JsonObject queue_spec;
  if (!q.parent_queue.empty()) queue_spec.Set("parentQueue", q.parent_queue);
  if (!spec.display_name.empty()) queue_spec.Set("displayName", spec.display_name);
  queue_spec.Set("priority", q.priority);
  queue_spec.Set(
      "resources",
      kube::JsonObject{{"gpu", Share(q.gpu)}, {"cpu", Share(q.cpu)}, {"memory", Share(q.memory)}});
  return kube::BuildJson(kube::JsonObject{{"apiVersion", "scheduling.run.ai/v2"},
                                          {"kind", "Queue"},
                                          {"metadata", Meta(spec, spec.name, false)},
                                          {"spec", std::move(queue_spec)}});
}

kube::Object RenderTenantAdminsBinding() {
  return Binding("ClusterRoleBinding",
                 kube::JsonObject{{"name", kTenantAdminGroup}, {"labels", SharedLabels()}},
                 "cluster-admin",
                 kube::JsonObject{{"apiGroup", "rbac.authorization.k8s.io"},
                                  {"kind", "Group"},
                                  {"name", kTenantAdminGroup}});
}

kube::Object RenderVirtualSyncerServiceAccount() {
  return kube::BuildJson(
      kube::JsonObject{{"apiVersion", "v1"},
                       {"kind", "ServiceAccount"},
                       {"metadata", kube::JsonObject{{"name", kSyncerServiceAccount},
                                                     {"namespace", kVirtualSyncerNamespace},
                                                     {"labels", SharedLabels()}}}});
}

kube::Object RenderVirtualSyncerBinding() {
  // The syncer reads and writes most kinds of the team's cluster (pods and
  // what they reference, nodes, events, tokens): cluster-admin, but as a
  // ServiceAccount whose tokens expire and which the operator can remove.
  return Binding("ClusterRoleBinding",
                 kube::JsonObject{{"name", kSyncerRole}, {"labels", SharedLabels()}},
                 "cluster-admin",
                 kube::JsonObject{{"kind", "ServiceAccount"},
                                  {"name", kSyncerServiceAccount},
                                  {"namespace", kVirtualSyncerNamespace}});
}

}  // namespace vtenant::op

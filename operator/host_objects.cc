#include "operator/host_objects.h"

#include <cassert>
#include <sstream>

#include "kube/base64.h"
#include "kube/json_builder.h"
#include "kube/kubeconfig.h"

namespace vtenant::op {

namespace resources {
const kube::ResourceType kNetworkPolicies{"networking.k8s.io", "v1", "networkpolicies",
                                          "NetworkPolicy", true};
const kube::ResourceType kStatefulSets{"apps", "v1", "statefulsets", "StatefulSet", true};
}  // namespace resources

namespace {

// A JSON string literal of `s`, escaped.
std::string Q(std::string_view s) {
  return kube::ToJson(rapidjson::Value(rapidjson::StringRef(s.data(), s.size())));
}

std::string Number(double v) {
  std::ostringstream out;
  out.precision(15);
  out << v;
  return out.str();
}

// Parses JSON this file wrote; a failure is a bug here, never user input
// (user strings go through Q).
kube::Object Parse(const std::string& json) {
  Result<kube::Object> o = kube::ParseJson(json);
  assert(o.ok());
  return o.ok() ? std::move(o).value() : kube::Object(rapidjson::kObjectType);
}

std::string Labels(const TenantSpec& spec) {
  return R"("labels":{"vtenant.io/tenant":)" + Q(spec.name) +
         R"(,"app.kubernetes.io/managed-by":"vtenant-operator"})";
}

std::string Meta(const TenantSpec& spec, std::string_view name, bool namespaced) {
  std::string m = R"("metadata":{"name":)" + Q(name) + ",";
  if (namespaced) m += R"("namespace":)" + Q(HostNamespace(spec.name)) + ",";
  return m + Labels(spec) + "}";
}

std::string Share(const ResourceShare& s) {
  return R"({"quota":)" + Number(s.quota) + R"(,"limit":)" + Number(s.limit) +
         R"(,"overQuotaWeight":)" + Number(s.over_quota_weight) + "}";
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
  labels["app.kubernetes.io/managed-by"] = "vtenant-operator";
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
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", kube::JsonObject{{"name", CertificateSecretName(spec.name)},
                                    {"namespace", ns},
                                    {"labels", kube::JsonObject{{kTenantLabel, spec.name},
                                                                {"app.kubernetes.io/managed-by",
                                                                 "vtenant-operator"}}}}},
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
  kube::JsonObject meta{
      {"name", KubeconfigSecretName(spec.name)},
      {"namespace", HostNamespace(spec.name)},
      {"labels", kube::JsonObject{{kTenantLabel, spec.name},
                                  {"app.kubernetes.io/managed-by", "vtenant-operator"}}}};
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
  return Parse(R"({"apiVersion":"v1","kind":"ServiceAccount",)" +
               Meta(spec, kSyncerServiceAccount, true) + "}");
}

namespace {

kube::JsonObject RbacMeta(const TenantSpec& spec, std::string_view name, bool namespaced) {
  kube::JsonObject meta{{"name", name}};
  if (namespaced) meta.Set("namespace", HostNamespace(spec.name));
  meta.Set("labels", kube::JsonObject{{kTenantLabel, spec.name},
                                      {"app.kubernetes.io/managed-by", "vtenant-operator"}});
  return meta;
}

kube::JsonObject ClusterRoleRef(std::string_view name) {
  return {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}};
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
  return kube::BuildJson(kube::JsonObject{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                                          {"kind", "RoleBinding"},
                                          {"metadata", RbacMeta(spec, kOperatorRoleBinding, true)},
                                          {"roleRef", ClusterRoleRef(kOperatorTenantRole)},
                                          {"subjects", kube::JsonArray{std::move(subject)}}});
}

kube::Object RenderSyncerRoleBinding(const TenantSpec& spec) {
  return kube::BuildJson(kube::JsonObject{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                                          {"kind", "RoleBinding"},
                                          {"metadata", RbacMeta(spec, kSyncerRoleBinding, true)},
                                          {"roleRef", ClusterRoleRef(kSyncerRole)},
                                          {"subjects", kube::JsonArray{SyncerSubject(spec)}}});
}

kube::Object RenderSyncerNodeReaderBinding(const TenantSpec& spec) {
  return kube::BuildJson(
      kube::JsonObject{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                       {"kind", "ClusterRoleBinding"},
                       {"metadata", RbacMeta(spec, SyncerNodeReaderBinding(spec.name), false)},
                       {"roleRef", ClusterRoleRef(kSyncerNodeReaderRole)},
                       {"subjects", kube::JsonArray{SyncerSubject(spec)}}});
}

kube::Object RenderKubeconfigReaderRole(const TenantSpec& spec) {
  return Parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",)" +
               Meta(spec, KubeconfigReaderRole(spec.name), true) +
               R"(,"rules":[{"apiGroups":[""],"resources":["secrets"],"resourceNames":[)" +
               Q(KubeconfigSecretName(spec.name)) + R"(],"verbs":["get"]}]})");
}

kube::Object RenderKubeconfigReaderBinding(const TenantSpec& spec) {
  std::string subjects;
  for (const auto& u : spec.admin_users) {
    subjects += (subjects.empty() ? "" : ",") +
                std::string(R"({"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":)") +
                Q(u) + "}";
  }
  for (const auto& g : spec.admin_groups) {
    subjects += (subjects.empty() ? "" : ",") +
                std::string(R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":)") +
                Q(g) + "}";
  }
  return Parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",)" +
               Meta(spec, KubeconfigReaderRole(spec.name), true) +
               R"(,"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":)" +
               Q(KubeconfigReaderRole(spec.name)) + R"(},"subjects":[)" + subjects + "]}");
}

namespace {

kube::JsonObject PolicyMeta(const TenantSpec& spec, std::string_view name) {
  return kube::JsonObject{
      {"name", name},
      {"namespace", HostNamespace(spec.name)},
      {"labels", kube::JsonObject{{kTenantLabel, spec.name},
                                  {"app.kubernetes.io/managed-by", "vtenant-operator"}}}};
}

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
      {"metadata", PolicyMeta(spec, kNetworkPolicyName)},
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
      {"metadata", PolicyMeta(spec, kControlPlaneNetworkPolicyName)},
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
  std::string json = R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue",)" +
                     Meta(spec, spec.name, false) + R"(,"spec":{)";
  if (!q.parent_queue.empty()) json += R"("parentQueue":)" + Q(q.parent_queue) + ",";
  if (!spec.display_name.empty()) json += R"("displayName":)" + Q(spec.display_name) + ",";
  json += R"("priority":)" + std::to_string(q.priority) + R"(,"resources":{"gpu":)" + Share(q.gpu) +
          R"(,"cpu":)" + Share(q.cpu) + R"(,"memory":)" + Share(q.memory) + "}}}";
  return Parse(json);
}

kube::Object RenderTenantAdminsBinding() {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRoleBinding"},
      {"metadata", kube::JsonObject{{"name", kTenantAdminGroup},
                                    {"labels", kube::JsonObject{{"app.kubernetes.io/managed-by",
                                                                 "vtenant-operator"}}}}},
      {"roleRef", ClusterRoleRef("cluster-admin")},
      {"subjects", kube::JsonArray{kube::JsonObject{{"apiGroup", "rbac.authorization.k8s.io"},
                                                    {"kind", "Group"},
                                                    {"name", kTenantAdminGroup}}}}});
}

kube::Object RenderVirtualSyncerServiceAccount() {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "ServiceAccount"},
      {"metadata", kube::JsonObject{{"name", kSyncerServiceAccount},
                                    {"namespace", kVirtualSyncerNamespace},
                                    {"labels", kube::JsonObject{{"app.kubernetes.io/managed-by",
                                                                 "vtenant-operator"}}}}}});
}

kube::Object RenderVirtualSyncerBinding() {
  // The syncer reads and writes most kinds of the team's cluster (pods and
  // what they reference, nodes, events, tokens): cluster-admin, but as a
  // ServiceAccount whose tokens expire and which the operator can remove.
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRoleBinding"},
      {"metadata", kube::JsonObject{{"name", kSyncerRole},
                                    {"labels", kube::JsonObject{{"app.kubernetes.io/managed-by",
                                                                 "vtenant-operator"}}}}},
      {"roleRef", ClusterRoleRef("cluster-admin")},
      {"subjects", kube::JsonArray{kube::JsonObject{{"kind", "ServiceAccount"},
                                                    {"name", kSyncerServiceAccount},
                                                    {"namespace", kVirtualSyncerNamespace}}}}});
}

}  // namespace vtenant::op

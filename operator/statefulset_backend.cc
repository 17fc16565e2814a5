#include "operator/statefulset_backend.h"

#include "kube/base64.h"
#include "kube/json_builder.h"
#include "kube/kubeconfig.h"
#include "operator/control_plane_args.h"
#include "operator/ensure_object.h"
#include "operator/host_credentials.h"
#include "operator/host_objects.h"

namespace vtenant::op {
namespace {

std::string Q(std::string_view s) {
  return kube::ToJson(rapidjson::Value(rapidjson::StringRef(s.data(), s.size())));
}

std::string Name(const ControlPlaneRequest& r) { return "vc-" + r.spec.name; }

std::string Labels(const ControlPlaneRequest& r) {
  return R"({"vtenant.io/tenant":)" + Q(r.spec.name) + "," + Q(kComponentLabel) + ":" +
         Q(kControlPlaneComponent) +
         R"(,"app.kubernetes.io/name":"vtenant-control-plane","app.kubernetes.io/managed-by":"vtenant-operator"})";
}

// What the Service and the StatefulSet select the control-plane pod by:
// vtenant.io keys only, which the syncer never copies from a tenant's pod
// (the tenant label it forces to the tenant, the component label it drops),
// so no synced pod can join the control plane's endpoints or be adopted.
std::string SelectorLabels(const ControlPlaneRequest& r) {
  return R"({"vtenant.io/tenant":)" + Q(r.spec.name) + "," + Q(kComponentLabel) + ":" +
         Q(kControlPlaneComponent) + "}";
}

std::string Meta(const ControlPlaneRequest& r, const std::string& name) {
  return R"("metadata":{"name":)" + Q(name) + R"(,"namespace":)" + Q(r.host_namespace) +
         R"(,"labels":)" + Labels(r) + "}";
}

std::string Resources(const ControlPlaneSpec& cp) {
  auto list = [](const std::map<std::string, std::string>& m) {
    std::string out = "{";
    for (const auto& [k, v] : m) out += (out.size() > 1 ? "," : "") + Q(k) + ":" + Q(v);
    return out + "}";
  };
  return R"({"requests":)" + list(cp.requests) + R"(,"limits":)" + list(cp.limits) + "}";
}

std::string Args(const std::vector<std::string>& args) {
  std::string out = "[";
  for (const auto& a : args) out += (out.size() > 1 ? "," : "") + Q(a);
  return out + "]";
}

kube::Object Parse(const std::string& json) {
  Result<kube::Object> o = kube::ParseJson(json);
  return o.ok() ? std::move(o).value() : kube::Object(rapidjson::kObjectType);
}

constexpr char kInternalKubeconfig[] = "/etc/vtenant/kubeconfig/config";
constexpr char kPkiDir[] = "/etc/vtenant/pki";
// The syncer's own credential in the virtual cluster (Secret vc-<t>-syncer):
// a token the operator renews and the kubelet brings into the file.
constexpr char kSyncerCredentialsDir[] = "/etc/vtenant/syncer";

}  // namespace

std::string StatefulSetEndpoint(const ControlPlaneRequest& request) {
  return "https://" + Name(request) + "." + request.host_namespace + ".svc:443";
}

kube::Object RenderControlPlaneService(const ControlPlaneRequest& r) {
  return Parse(R"({"apiVersion":"v1","kind":"Service",)" + Meta(r, Name(r)) +
               R"(,"spec":{"type":"ClusterIP","selector":)" + SelectorLabels(r) + R"(,
      "ports":[{"name":"https","port":443,"targetPort":6443,"protocol":"TCP"}]}})");
}

std::string ControlPlaneSecretName(std::string_view tenant) {
  return "vc-" + std::string(tenant) + "-control-plane";
}

kube::Object RenderControlPlaneSecret(const ControlPlaneRequest& r) {
  const TenantCertificates& c = r.certificates;
  kube::JsonObject data;
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"ca.crt", c.ca.certificate_pem},
           {"client-ca.crt", ClientCaBundle(c)},
           {"apiserver.crt", c.apiserver.certificate_pem},
           {"apiserver.key", c.apiserver.private_key_pem},
           {"sa.key", c.service_account.private_key_pem},
           {"sa.pub", c.service_account.public_key_pem}}) {
    data.Set(key, kube::EncodeBase64(value));
  }
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       kube::JsonObject{
           {"name", ControlPlaneSecretName(r.spec.name)},
           {"namespace", r.host_namespace},
           {"labels", kube::JsonObject{{"vtenant.io/tenant", r.spec.name},
                                       {"app.kubernetes.io/name", "vtenant-control-plane"},
                                       {"app.kubernetes.io/managed-by", "vtenant-operator"}}}}},
      {"type", "Opaque"},
      {"data", std::move(data)}});
}

std::string SyncerSecretName(std::string_view tenant) {
  return "vc-" + std::string(tenant) + "-syncer";
}

kube::Object RenderSyncerSecret(const ControlPlaneRequest& r) {
  const std::string kubeconfig =
      RenderTokenFileKubeconfig("https://127.0.0.1:6443", r.certificates.ca.certificate_pem,
                                std::string(kSyncerCredentialsDir) + "/token", Name(r));
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       kube::JsonObject{
           {"name", SyncerSecretName(r.spec.name)},
           {"namespace", r.host_namespace},
           {"labels", kube::JsonObject{{"vtenant.io/tenant", r.spec.name},
                                       {"app.kubernetes.io/name", "vtenant-control-plane"},
                                       {"app.kubernetes.io/managed-by", "vtenant-operator"}}}}},
      {"type", "Opaque"},
      {"data", kube::JsonObject{{"config", kube::EncodeBase64(kubeconfig)},
                                {"token", kube::EncodeBase64(r.syncer_virtual_token)}}}});
}

kube::Object RenderInternalKubeconfigSecret(const ControlPlaneRequest& r) {
  kube::RestConfig config;
  config.server = "https://127.0.0.1:6443";
  config.ca_pem = r.certificates.ca.certificate_pem;
  config.client_certificate_pem = r.certificates.admin.certificate_pem;
  config.client_key_pem = r.certificates.admin.private_key_pem;
  return Parse(R"({"apiVersion":"v1","kind":"Secret",)" + Meta(r, Name(r) + "-internal") +
               R"(,"type":"Opaque","data":{"config":)" +
               Q(kube::EncodeBase64(kube::RenderKubeconfig(config, r.spec.name))) + "}}");
}

kube::Object RenderControlPlaneStatefulSet(const ControlPlaneRequest& r,
                                           const StatefulSetBackendOptions& o) {
  const ControlPlaneSpec& cp = r.spec.control_plane;
  const std::string version =
      cp.kubernetes_version.empty() ? o.default_kubernetes_version : cp.kubernetes_version;
  const std::string resources = Resources(cp);
  std::vector<std::string> etcd = {"etcd",
                                   "--data-dir=/var/lib/etcd",
                                   "--listen-client-urls=http://127.0.0.1:2379",
                                   "--advertise-client-urls=http://127.0.0.1:2379",
                                   "--listen-peer-urls=http://127.0.0.1:2380",
                                   "--quota-backend-bytes=2147483648"};
  // Everything in one pod: etcd on localhost, the API server on 6443 behind
  // the Service vc-<t>, the certificates from Secret vc-<t>-control-plane.
  ControlPlaneArgs rendered = RenderControlPlaneArgs(
      r, {.etcd_servers = "http://127.0.0.1:2379",
          .apiserver_port = 6443,
          .pki_dir = kPkiDir,
          .service_cidr = o.service_cidr,
          .kubeconfig = kInternalKubeconfig,
          .syncer_virtual_kubeconfig = std::string(kSyncerCredentialsDir) + "/config",
          .virtual_service_host = Name(r) + "." + r.host_namespace + ".svc",
          .virtual_service_port = 443,
          .syncer_health_address = "0.0.0.0:8081"});
  // A changed policy changes the pod template, so the pod is replaced and
  // its syncer starts with it.
  auto command = [](std::string program, std::vector<std::string> args) {
    args.insert(args.begin(), std::move(program));
    return args;
  };
  const std::vector<std::string> apiserver = command("kube-apiserver", rendered.apiserver);
  const std::vector<std::string> kcm =
      command("kube-controller-manager", rendered.controller_manager);
  const std::vector<std::string> syncer = command("vtenant-syncer", rendered.syncer);
  const std::string certs_volume =
      R"({"name":"pki","mountPath":")" + std::string(kPkiDir) + R"(","readOnly":true})";
  const std::string kubeconfig_volume =
      R"({"name":"kubeconfig","mountPath":"/etc/vtenant/kubeconfig","readOnly":true})";
  // The syncer's host credential, a token of the pod's ServiceAccount
  // (vtenant-syncer) the kubelet renews, is mounted into the syncer's
  // container alone: etcd, the API server and the controller manager never
  // see it.
  const std::string syncer_volume = R"({"name":"syncer-credentials","mountPath":")" +
                                    std::string(kSyncerCredentialsDir) + R"(","readOnly":true})";
  const std::string host_token_volume =
      R"({"name":"host-token","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true})";
  const std::string host_token_source =
      R"({"name":"host-token","projected":{"defaultMode":256,"sources":[)"
      R"({"serviceAccountToken":{"path":"token","expirationSeconds":3600}},)"
      R"({"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},)"
      R"({"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"fieldPath":"metadata.namespace"}}]}}]}})";
  const std::string security =
      R"({"allowPrivilegeEscalation":false,"readOnlyRootFilesystem":true,"runAsNonRoot":true,"runAsUser":65532,"capabilities":{"drop":["ALL"]}})";

  std::string json = R"({"apiVersion":"apps/v1","kind":"StatefulSet",)" + Meta(r, Name(r)) +
                     R"(,"spec":{"replicas":1,"serviceName":)" + Q(Name(r)) +
                     R"(,"podManagementPolicy":"Parallel","selector":{"matchLabels":)" +
                     SelectorLabels(r) + R"(,"matchExpressions":[{"key":)" +
                     Q(kSyncerManagedByLabel) +
                     R"(,"operator":"DoesNotExist"}]},"template":{"metadata":{"labels":)" +
                     Labels(r) + R"(},"spec":{"serviceAccountName":)" + Q(kSyncerServiceAccount) +
                     R"(,"automountServiceAccountToken":false,"enableServiceLinks":false,
      "securityContext":{"fsGroup":65532,"seccompProfile":{"type":"RuntimeDefault"}},
      "containers":[)";
  json += R"({"name":"etcd","image":)" + Q(o.etcd_image) + R"(,"command":)" + Args(etcd) +
          R"(,"resources":)" + resources + R"(,"securityContext":)" + security +
          R"(,"volumeMounts":[{"name":"data","mountPath":"/var/lib/etcd"}]},)";
  json +=
      R"({"name":"kube-apiserver","image":)" + Q(o.image_registry + "/kube-apiserver:" + version) +
      R"(,"command":)" + Args(apiserver) +
      R"(,"ports":[{"name":"https","containerPort":6443}],"resources":)" + resources +
      R"(,"securityContext":)" + security + R"(,"volumeMounts":[)" + certs_volume +
      R"(],"readinessProbe":{"httpGet":{"path":"/readyz","port":6443,"scheme":"HTTPS"},"periodSeconds":2},
           "livenessProbe":{"httpGet":{"path":"/livez","port":6443,"scheme":"HTTPS"},"initialDelaySeconds":15,"periodSeconds":10,"failureThreshold":6}},)";
  json += R"({"name":"kube-controller-manager","image":)" +
          Q(o.image_registry + "/kube-controller-manager:" + version) + R"(,"command":)" +
          Args(kcm) + R"(,"resources":)" + resources + R"(,"securityContext":)" + security +
          R"(,"volumeMounts":[)" + certs_volume + "," + kubeconfig_volume + "]},";
  json += R"({"name":"syncer","image":)" + Q(o.syncer_image) + R"(,"command":)" + Args(syncer) +
          R"(,"resources":)" + resources + R"(,"securityContext":)" + security +
          R"(,"volumeMounts":[)" + syncer_volume + "," + host_token_volume +
          R"(],"readinessProbe":{"httpGet":{"path":"/readyz","port":8081},"periodSeconds":5}}],
      "volumes":[{"name":"pki","secret":{"secretName":)" +
          Q(ControlPlaneSecretName(r.spec.name)) +
          R"(,"defaultMode":256}},{"name":"kubeconfig","secret":{"secretName":)" +
          Q(Name(r) + "-internal") +
          R"(,"defaultMode":256}},{"name":"syncer-credentials","secret":{"secretName":)" +
          Q(SyncerSecretName(r.spec.name)) + R"(,"defaultMode":256}},)" + host_token_source +
          R"(]}},
    "volumeClaimTemplates":[{"metadata":{"name":"data","labels":)" +
          Labels(r) +
          R"(},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":)" +
          Q(cp.storage_size) + "}}}}]}}";
  return Parse(json);
}

StatefulSetBackend::StatefulSetBackend(kube::Client& host, StatefulSetBackendOptions options)
    : host_(host), options_(std::move(options)) {}

Result<ControlPlaneStatus> StatefulSetBackend::Ensure(const ControlPlaneRequest& request) {
  VT_ASSIGN_OR_RETURN(Ensured pki,
                      EnsureObject(host_, kube::resources::kSecrets, request.host_namespace,
                                   RenderControlPlaneSecret(request)));
  (void)pki;
  VT_ASSIGN_OR_RETURN(Ensured secret,
                      EnsureObject(host_, kube::resources::kSecrets, request.host_namespace,
                                   RenderInternalKubeconfigSecret(request)));
  (void)secret;
  // The syncer's container waits for its Secret until the operator has a
  // token for it.
  if (!request.syncer_virtual_token.empty()) {
    VT_ASSIGN_OR_RETURN(Ensured syncer,
                        EnsureObject(host_, kube::resources::kSecrets, request.host_namespace,
                                     RenderSyncerSecret(request)));
    (void)syncer;
  }
  VT_ASSIGN_OR_RETURN(Ensured service,
                      EnsureObject(host_, kube::resources::kServices, request.host_namespace,
                                   RenderControlPlaneService(request)));
  (void)service;
  kube::Object sts = RenderControlPlaneStatefulSet(request, options_);
  // volumeClaimTemplates cannot change after creation; the storage size is
  // applied once and resized through the PVC, not the template.
  Result<kube::Object> existing =
      host_.Get(resources::kStatefulSets, request.host_namespace, kube::Name(sts));
  if (existing.ok()) {
    // A selector cannot change either: a StatefulSet made with another one
    // (by an older operator) is replaced; its volume claim stays and is
    // taken up by the new one.
    const rapidjson::Value* had = kube::Find(*existing, {"spec", "selector"});
    if (had == nullptr || !ContainsFields(*had, sts["spec"]["selector"]) ||
        !ContainsFields(sts["spec"]["selector"], *had)) {
      VT_ASSIGN_OR_RETURN(Deleted gone,
                          DeleteIfOwned(host_, resources::kStatefulSets, request.host_namespace,
                                        kube::Name(sts), request.spec.name));
      (void)gone;
      ControlPlaneStatus status;
      status.endpoint = StatefulSetEndpoint(request);
      status.control_plane = {false, "Replacing",
                              "StatefulSet " + request.host_namespace + "/" +
                                  std::string(kube::Name(sts)) +
                                  " had another pod selector and is being replaced"};
      status.syncer = {false, "ControlPlaneNotReady", "the syncer runs in the control-plane pod"};
      return status;
    }
    sts["spec"].RemoveMember("volumeClaimTemplates");
  }
  VT_ASSIGN_OR_RETURN(Ensured set,
                      EnsureObject(host_, resources::kStatefulSets, request.host_namespace, sts));
  (void)set;
  Result<kube::Object> now =
      host_.Get(resources::kStatefulSets, request.host_namespace, kube::Name(sts));
  if (!now.ok()) return now.status();
  ControlPlaneStatus status;
  status.endpoint = StatefulSetEndpoint(request);
  const int64_t ready = kube::GetInt(*now, {"status", "readyReplicas"});
  if (ready >= 1) {
    status.control_plane = {
        true, "Running",
        "StatefulSet " + request.host_namespace + "/" + std::string(kube::Name(sts)) + " is ready"};
    status.syncer = {true, "Running", "the syncer container is ready"};
  } else {
    status.control_plane = {false, "PodNotReady",
                            "StatefulSet " + request.host_namespace + "/" +
                                std::string(kube::Name(sts)) +
                                " has no ready pod yet; `kubectl -n " + request.host_namespace +
                                " describe pod " + std::string(kube::Name(sts)) + "-0` says why"};
    status.syncer = {false, "ControlPlaneNotReady", "the syncer runs in the control-plane pod"};
  }
  return status;
}

Result<bool> StatefulSetBackend::Remove(const std::string& tenant,
                                        const std::string& host_namespace) {
  const std::string name = "vc-" + tenant;
  // Only what the operator made for this tenant goes (a namespace it does
  // not own may hold objects of these names).
  VT_ASSIGN_OR_RETURN(Deleted sts,
                      DeleteIfOwned(host_, resources::kStatefulSets, host_namespace, name, tenant));
  for (const auto& [type, object] : std::vector<std::pair<const kube::ResourceType*, std::string>>{
           {&kube::resources::kServices, name},
           {&kube::resources::kSecrets, name + "-internal"},
           {&kube::resources::kSecrets, ControlPlaneSecretName(tenant)},
           {&kube::resources::kSecrets, SyncerSecretName(tenant)}}) {
    VT_ASSIGN_OR_RETURN(Deleted deleted,
                        DeleteIfOwned(host_, *type, host_namespace, object, tenant));
    (void)deleted;
  }
  if (sts == Deleted::kNotOurs) return true;
  // The PVC is not owned by the StatefulSet; the namespace's deletion takes it.
  Result<kube::Object> left = host_.Get(resources::kStatefulSets, host_namespace, name);
  if (left.status().code() == StatusCode::kNotFound) return true;
  if (!left.ok()) return left.status();
  return false;
}

}  // namespace vtenant::op

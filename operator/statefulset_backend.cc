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

std::string Name(const ControlPlaneRequest& r) { return ControlPlaneName(r.spec.name); }

// The labels of what the backend writes for tenant r; the component label
// only with `component` (the credential Secrets go without it).
kube::JsonObject Labels(const ControlPlaneRequest& r, bool component = true) {
  kube::JsonObject labels{{kTenantLabel, r.spec.name}};
  if (component) labels.Set(kComponentLabel, kControlPlaneComponent);
  labels.Set("app.kubernetes.io/name", "vtenant-control-plane");
  labels.Set(kManagedByLabel, kManagedByOperator);
  return labels;
}

// What the Service and the StatefulSet select the control-plane pod by:
// vtenant.io keys only, which the syncer never copies from a tenant's pod
// (the tenant label it forces to the tenant, the component label it drops),
// so no synced pod can join the control plane's endpoints or be adopted.
kube::JsonObject SelectorLabels(const ControlPlaneRequest& r) {
  return {{kTenantLabel, r.spec.name}, {kComponentLabel, kControlPlaneComponent}};
}

kube::JsonObject Meta(const ControlPlaneRequest& r, const std::string& name) {
  return {{"name", name}, {"namespace", r.host_namespace}, {"labels", Labels(r)}};
}

// An Opaque Secret `name` of the control plane's credentials holding `data`.
kube::Object CredentialSecret(const ControlPlaneRequest& r, const std::string& name,
                              kube::JsonObject data) {
  return kube::BuildJson(
      kube::JsonObject{{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata", kube::JsonObject{{"name", name},
                                                     {"namespace", r.host_namespace},
                                                     {"labels", Labels(r, /*component=*/false)}}},
                       {"type", "Opaque"},
                       {"data", std::move(data)}});
}

kube::JsonObject Resources(const ControlPlaneSpec& cp) {
  return {{"requests", kube::StringMap(cp.requests)}, {"limits", kube::StringMap(cp.limits)}};
}

kube::JsonObject Mount(std::string_view volume, std::string_view path) {
  return {{"name", volume}, {"mountPath", path}, {"readOnly", true}};
}

// A Secret as a volume, readable by its owner only.
kube::JsonObject SecretVolume(std::string_view volume, const std::string& secret) {
  return {{"name", volume},
          {"secret", kube::JsonObject{{"secretName", secret}, {"defaultMode", 256}}}};
}

// A Secret that may not exist yet: the pod starts without it and the
// kubelet fills the volume once it appears. The syncer's Secret is one: the
// operator writes it with a token of the virtual API server this very pod
// serves, so requiring it would keep the pod from ever starting.
kube::JsonObject OptionalSecretVolume(std::string_view volume, const std::string& secret) {
  return {{"name", volume},
          {"secret",
           kube::JsonObject{{"secretName", secret}, {"defaultMode", 256}, {"optional", true}}}};
}

// Whether `pod`'s container `name` reports ready.
bool ContainerReady(const kube::Object& pod, std::string_view name) {
  const rapidjson::Value* statuses = kube::Find(pod, {"status", "containerStatuses"});
  if (statuses == nullptr || !statuses->IsArray()) return false;
  for (const rapidjson::Value& c : statuses->GetArray()) {
    if (kube::GetString(c, {"name"}) != name) continue;
    const rapidjson::Value* ready = kube::Find(c, {"ready"});
    return ready != nullptr && ready->IsTrue();
  }
  return false;
}

// The three files of the control plane's Secret the syncer's kubelet
// endpoint needs (its certificate and key, the CA that signs the API
// server's client certificate), and no other key of it.
kube::JsonObject SyncerKubeletVolume(const std::string& secret) {
  kube::JsonArray items;
  for (const char* key : {"ca.crt", "syncer-kubelet.crt", "syncer-kubelet.key"}) {
    items.Add(kube::JsonObject{{"key", key}, {"path", key}});
  }
  return {
      {"name", "syncer-kubelet"},
      {"secret", kube::JsonObject{
                     {"secretName", secret}, {"defaultMode", 256}, {"items", std::move(items)}}}};
}

kube::JsonObject HttpProbe(std::string_view path, int port, std::string_view scheme = {}) {
  kube::JsonObject get{{"path", path}, {"port", port}};
  if (!scheme.empty()) get.Set("scheme", scheme);
  return {{"httpGet", std::move(get)}};
}

constexpr char kInternalKubeconfig[] = "/etc/vtenant/kubeconfig/config";
constexpr char kPkiDir[] = "/etc/vtenant/pki";
// The syncer's own credential in the virtual cluster (Secret vc-<t>-syncer):
// a token the operator renews and the kubelet brings into the file.
constexpr char kSyncerCredentialsDir[] = "/etc/vtenant/syncer";
// The syncer's kubelet endpoint's certificate and key and the tenant's CA:
// three keys of the control plane's Secret (SyncerKubeletVolume).
constexpr char kSyncerKubeletPkiDir[] = "/etc/vtenant/syncer-kubelet";

}  // namespace

std::string StatefulSetEndpoint(const ControlPlaneRequest& request) {
  return "https://" + Name(request) + "." + request.host_namespace + ".svc:443";
}

kube::Object RenderControlPlaneService(const ControlPlaneRequest& r) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", Meta(r, Name(r))},
      {"spec",
       kube::JsonObject{
           {"type", "ClusterIP"},
           {"selector", SelectorLabels(r)},
           // The pod is Ready only once its syncer is, and the syncer
           // waits for a token the operator mints through this Service:
           // the API server is reached before the pod is Ready.
           {"publishNotReadyAddresses", true},
           {"ports",
            kube::JsonArray{kube::JsonObject{
                {"name", "https"}, {"port", 443}, {"targetPort", 6443}, {"protocol", "TCP"}}}}}}});
}

std::string ControlPlaneSecretName(std::string_view tenant) {
  return "vc-" + std::string(tenant) + "-control-plane";
}

kube::Object RenderControlPlaneSecret(const ControlPlaneRequest& r) {
  kube::JsonObject data;
  for (const auto& [key, value] : ControlPlanePkiFiles(r.certificates)) {
    data.Set(key, kube::EncodeBase64(value));
  }
  return CredentialSecret(r, ControlPlaneSecretName(r.spec.name), std::move(data));
}

std::string SyncerSecretName(std::string_view tenant) {
  return "vc-" + std::string(tenant) + "-syncer";
}

kube::Object RenderSyncerSecret(const ControlPlaneRequest& r) {
  const std::string kubeconfig =
      RenderTokenFileKubeconfig("https://127.0.0.1:6443", r.certificates.ca.certificate_pem,
                                std::string(kSyncerCredentialsDir) + "/token", Name(r));
  return CredentialSecret(r, SyncerSecretName(r.spec.name),
                          kube::JsonObject{{"config", kube::EncodeBase64(kubeconfig)},
                                           {"token", kube::EncodeBase64(r.syncer_virtual_token)}});
}

kube::Object RenderInternalKubeconfigSecret(const ControlPlaneRequest& r) {
  kube::RestConfig config;
  config.server = "https://127.0.0.1:6443";
  config.ca_pem = r.certificates.ca.certificate_pem;
  config.client_certificate_pem = r.certificates.admin.certificate_pem;
  config.client_key_pem = r.certificates.admin.private_key_pem;
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", Meta(r, Name(r) + "-internal")},
      {"type", "Opaque"},
      {"data", kube::JsonObject{
                   {"config", kube::EncodeBase64(kube::RenderKubeconfig(config, r.spec.name))}}}});
}

kube::Object RenderControlPlaneStatefulSet(const ControlPlaneRequest& r,
                                           const StatefulSetBackendOptions& o) {
  const ControlPlaneSpec& cp = r.spec.control_plane;
  const std::string version =
      cp.kubernetes_version.empty() ? o.default_kubernetes_version : cp.kubernetes_version;
  const kube::JsonObject resources = Resources(cp);
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
          .syncer_health_address = "0.0.0.0:8081",
          // The virtual Nodes' kubelet endpoint, beside the API server in the pod.
          .syncer_kubelet_address = "127.0.0.1:10250",
          .syncer_kubelet_pki_dir = kSyncerKubeletPkiDir});
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
  const kube::JsonObject security{
      {"allowPrivilegeEscalation", false},
      {"readOnlyRootFilesystem", true},
      {"runAsNonRoot", true},
      {"runAsUser", 65532},
      {"capabilities", kube::JsonObject{{"drop", kube::JsonArray{"ALL"}}}}};
  auto container = [&](std::string_view name, const std::string& image,
                       const std::vector<std::string>& argv, kube::JsonArray mounts) {
    return kube::JsonObject{{"name", name},
                            {"image", image},
                            {"command", kube::StringArray(argv)},
                            {"resources", resources},
                            {"securityContext", security},
                            {"volumeMounts", std::move(mounts)}};
  };
  const kube::JsonObject certs_mount = Mount("pki", kPkiDir);
  kube::JsonObject etcd_container = container(
      "etcd", o.etcd_image, etcd,
      kube::JsonArray{kube::JsonObject{{"name", "data"}, {"mountPath", "/var/lib/etcd"}}});
  kube::JsonObject apiserver_container =
      container("kube-apiserver", o.image_registry + "/kube-apiserver:" + version, apiserver,
                kube::JsonArray{certs_mount});
  apiserver_container.Set(
      "ports", kube::JsonArray{kube::JsonObject{{"name", "https"}, {"containerPort", 6443}}});
  kube::JsonObject readiness = HttpProbe("/readyz", 6443, "HTTPS");
  readiness.Set("periodSeconds", 2);
  apiserver_container.Set("readinessProbe", std::move(readiness));
  kube::JsonObject liveness = HttpProbe("/livez", 6443, "HTTPS");
  liveness.Set("initialDelaySeconds", 15).Set("periodSeconds", 10).Set("failureThreshold", 6);
  apiserver_container.Set("livenessProbe", std::move(liveness));
  kube::JsonObject kcm_container =
      container("kube-controller-manager", o.image_registry + "/kube-controller-manager:" + version,
                kcm, kube::JsonArray{certs_mount, Mount("kubeconfig", "/etc/vtenant/kubeconfig")});
  // The syncer's host credential, a token of the pod's ServiceAccount
  // (vtenant-syncer) the kubelet renews, is mounted into the syncer's
  // container alone: etcd, the API server and the controller manager never
  // see it.
  kube::JsonObject syncer_container = container(
      "syncer", o.syncer_image, syncer,
      kube::JsonArray{Mount("syncer-credentials", kSyncerCredentialsDir),
                      Mount("host-token", "/var/run/secrets/kubernetes.io/serviceaccount"),
                      Mount("syncer-kubelet", kSyncerKubeletPkiDir)});
  kube::JsonObject syncer_readiness = HttpProbe("/readyz", 8081);
  syncer_readiness.Set("periodSeconds", 5);
  syncer_container.Set("readinessProbe", std::move(syncer_readiness));
  const kube::JsonObject host_token_source{
      {"name", "host-token"},
      {"projected",
       kube::JsonObject{
           {"defaultMode", 256},
           {"sources",
            kube::JsonArray{
                kube::JsonObject{
                    {"serviceAccountToken",
                     kube::JsonObject{{"path", "token"}, {"expirationSeconds", 3600}}}},
                kube::JsonObject{
                    {"configMap",
                     kube::JsonObject{{"name", "kube-root-ca.crt"},
                                      {"items", kube::JsonArray{kube::JsonObject{
                                                    {"key", "ca.crt"}, {"path", "ca.crt"}}}}}}},
                kube::JsonObject{
                    {"downwardAPI",
                     kube::JsonObject{
                         {"items",
                          kube::JsonArray{kube::JsonObject{
                              {"path", "namespace"},
                              {"fieldRef",
                               kube::JsonObject{{"fieldPath", "metadata.namespace"}}}}}}}}}}}}}};

  const kube::JsonObject pod_spec{
      {"serviceAccountName", kSyncerServiceAccount},
      {"automountServiceAccountToken", false},
      {"enableServiceLinks", false},
      {"securityContext",
       kube::JsonObject{{"fsGroup", 65532},
                        {"seccompProfile", kube::JsonObject{{"type", "RuntimeDefault"}}}}},
      {"containers", kube::JsonArray{std::move(etcd_container), std::move(apiserver_container),
                                     std::move(kcm_container), std::move(syncer_container)}},
      {"volumes",
       kube::JsonArray{SecretVolume("pki", ControlPlaneSecretName(r.spec.name)),
                       SecretVolume("kubeconfig", Name(r) + "-internal"),
                       OptionalSecretVolume("syncer-credentials", SyncerSecretName(r.spec.name)),
                       SyncerKubeletVolume(ControlPlaneSecretName(r.spec.name)),
                       host_token_source}}};
  const kube::JsonObject claim{
      {"metadata", kube::JsonObject{{"name", "data"}, {"labels", Labels(r)}}},
      {"spec",
       kube::JsonObject{
           {"accessModes", kube::JsonArray{"ReadWriteOnce"}},
           {"resources",
            kube::JsonObject{{"requests", kube::JsonObject{{"storage", cp.storage_size}}}}}}}};
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "apps/v1"},
      {"kind", "StatefulSet"},
      {"metadata", Meta(r, Name(r))},
      {"spec",
       kube::JsonObject{
           {"replicas", 1},
           {"serviceName", Name(r)},
           {"podManagementPolicy", "Parallel"},
           {"selector", kube::JsonObject{{"matchLabels", SelectorLabels(r)},
                                         {"matchExpressions", kube::JsonArray{kube::JsonObject{
                                                                  {"key", kSyncerManagedByLabel},
                                                                  {"operator", "DoesNotExist"}}}}}},
           {"template", kube::JsonObject{{"metadata", kube::JsonObject{{"labels", Labels(r)}}},
                                         {"spec", pod_spec}}},
           {"volumeClaimTemplates", kube::JsonArray{claim}}}}});
}

StatefulSetBackend::StatefulSetBackend(kube::Client& host, StatefulSetBackendOptions options)
    : host_(host), options_(std::move(options)) {}

Result<ControlPlaneStatus> StatefulSetBackend::Ensure(const ControlPlaneRequest& request) {
  auto ensure = [&](const kube::ResourceType& type, const rapidjson::Value& desired) {
    return EnsureObject(host_, type, request.host_namespace, desired).status();
  };
  VT_RETURN_IF_ERROR(ensure(kube::resources::kSecrets, RenderControlPlaneSecret(request)));
  VT_RETURN_IF_ERROR(ensure(kube::resources::kSecrets, RenderInternalKubeconfigSecret(request)));
  // The syncer's container waits for its Secret until the operator has a
  // token for it.
  if (!request.syncer_virtual_token.empty()) {
    VT_RETURN_IF_ERROR(ensure(kube::resources::kSecrets, RenderSyncerSecret(request)));
  }
  VT_RETURN_IF_ERROR(ensure(kube::resources::kServices, RenderControlPlaneService(request)));
  kube::Object sts = RenderControlPlaneStatefulSet(request, options_);
  // volumeClaimTemplates cannot change after creation; the storage size is
  // applied once and resized through the PVC, not the template.
  Result<kube::Object> existing =
      host_.Get(kube::resources::kStatefulSets, request.host_namespace, kube::Name(sts));
  if (existing.ok()) {
    // A selector cannot change either: a StatefulSet made with another one
    // (by an older operator) is replaced; its volume claim stays and is
    // taken up by the new one.
    const rapidjson::Value* had = kube::Find(*existing, {"spec", "selector"});
    if (had == nullptr || !ContainsFields(*had, sts["spec"]["selector"]) ||
        !ContainsFields(sts["spec"]["selector"], *had)) {
      VT_RETURN_IF_ERROR(DeleteIfOwned(host_, kube::resources::kStatefulSets,
                                       request.host_namespace, kube::Name(sts), request.spec.name)
                             .status());
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
  VT_RETURN_IF_ERROR(ensure(kube::resources::kStatefulSets, sts));
  Result<kube::Object> now =
      host_.Get(kube::resources::kStatefulSets, request.host_namespace, kube::Name(sts));
  if (!now.ok()) return now.status();
  ControlPlaneStatus status;
  status.endpoint = StatefulSetEndpoint(request);
  const std::string set_name(kube::Name(sts));
  const std::string pod_name = set_name + "-0";
  // The pod is Ready only once all four containers are, and the syncer's
  // waits for a token the operator mints once the API server answers: so
  // each is read from its own container's status.
  Result<kube::Object> pod = host_.Get(kube::resources::kPods, request.host_namespace, pod_name);
  if (!pod.ok() && pod.status().code() != StatusCode::kNotFound) return pod.status();
  const bool apiserver_ready = pod.ok() && ContainerReady(*pod, "kube-apiserver");
  const bool syncer_ready = pod.ok() && ContainerReady(*pod, "syncer");
  if (apiserver_ready) {
    status.control_plane = {
        true, "Running",
        "the API server of pod " + request.host_namespace + "/" + pod_name + " is ready"};
  } else {
    status.control_plane = {false, "PodNotReady",
                            "StatefulSet " + request.host_namespace + "/" + set_name +
                                " has no ready API server yet; `kubectl -n " +
                                request.host_namespace + " describe pod " + pod_name +
                                "` says why"};
  }
  if (syncer_ready) {
    status.syncer = {true, "Running", "the syncer container is ready"};
  } else if (apiserver_ready) {
    status.syncer = {false, "NotReady",
                     "the syncer container of pod " + request.host_namespace + "/" + pod_name +
                         " is not ready yet (it starts once its token Secret " +
                         SyncerSecretName(request.spec.name) + " reaches it)"};
  } else {
    status.syncer = {false, "ControlPlaneNotReady", "the syncer runs in the control-plane pod"};
  }
  return status;
}

Result<bool> StatefulSetBackend::Remove(const std::string& tenant,
                                        const std::string& host_namespace) {
  const std::string name = ControlPlaneName(tenant);
  // Only what the operator made for this tenant goes (a namespace it does
  // not own may hold objects of these names).
  VT_ASSIGN_OR_RETURN(Deleted sts, DeleteIfOwned(host_, kube::resources::kStatefulSets,
                                                 host_namespace, name, tenant));
  for (const auto& [type, object] : std::vector<std::pair<const kube::ResourceType*, std::string>>{
           {&kube::resources::kServices, name},
           {&kube::resources::kSecrets, name + "-internal"},
           {&kube::resources::kSecrets, ControlPlaneSecretName(tenant)},
           {&kube::resources::kSecrets, SyncerSecretName(tenant)}}) {
    VT_RETURN_IF_ERROR(DeleteIfOwned(host_, *type, host_namespace, object, tenant).status());
  }
  if (sts == Deleted::kNotOurs) return true;
  // The PVC is not owned by the StatefulSet; the namespace's deletion takes it.
  Result<kube::Object> left = host_.Get(kube::resources::kStatefulSets, host_namespace, name);
  if (left.status().code() == StatusCode::kNotFound) return true;
  if (!left.ok()) return left.status();
  return false;
}

}  // namespace vtenant::op

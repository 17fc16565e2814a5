#include "operator/statefulset_backend.h"

#include <gtest/gtest.h>

#include <set>

#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/json.h"
#include "operator/host_objects.h"

namespace vtenant::op {
namespace {

ControlPlaneRequest Request() {
  ControlPlaneRequest r;
  r.spec.name = "nlp";
  r.spec.control_plane.backend = Backend::kStatefulSet;
  r.spec.control_plane.kubernetes_version = "v1.37.2";
  r.spec.control_plane.storage_size = "5Gi";
  r.spec.control_plane.requests = {{"cpu", "200m"}, {"memory", "512Mi"}};
  r.spec.isolation.allowed_privileged_features = {"hostPath"};
  r.spec.isolation.node_selector = {{"pool", "gpu"}};
  r.host_namespace = "vtenant-nlp";
  r.allowed_priority_classes = {"inference", "train"};
  CertificateChanges changes;
  r.certificates = *EnsureCertificates({}, DefaultCertificatePolicy("nlp", "vtenant-nlp"),
                                       std::chrono::system_clock::now(), &changes);
  return r;
}

const rapidjson::Value* Container(const kube::Object& sts, std::string_view name) {
  for (const auto& c : sts["spec"]["template"]["spec"]["containers"].GetArray()) {
    if (kube::GetString(c, {"name"}) == name) return &c;
  }
  return nullptr;
}

std::vector<std::string> Command(const rapidjson::Value& c) {
  std::vector<std::string> out;
  for (const auto& a : c["command"].GetArray()) out.emplace_back(a.GetString());
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(StatefulSetBackendTest, PodRunsTheFourComponents) {
  kube::Object sts = RenderControlPlaneStatefulSet(Request(), {});
  ASSERT_TRUE(sts.IsObject() && sts.HasMember("spec")) << kube::ToJson(sts);
  EXPECT_EQ(kube::Name(sts), "vc-nlp");
  EXPECT_EQ(kube::Namespace(sts), "vtenant-nlp");
  EXPECT_EQ(kube::GetInt(sts, {"spec", "replicas"}), 1);
  EXPECT_EQ(kube::GetString(sts, {"spec", "template", "spec", "serviceAccountName"}),
            "vtenant-syncer");
  for (const char* name : {"etcd", "kube-apiserver", "kube-controller-manager", "syncer"}) {
    ASSERT_NE(Container(sts, name), nullptr) << name;
  }
  EXPECT_EQ(kube::GetString(*Container(sts, "kube-apiserver"), {"image"}),
            "registry.k8s.io/kube-apiserver:v1.37.2");
  EXPECT_EQ(kube::GetString(*Container(sts, "kube-controller-manager"), {"image"}),
            "registry.k8s.io/kube-controller-manager:v1.37.2");
  auto apiserver = Command(*Container(sts, "kube-apiserver"));
  EXPECT_TRUE(Has(apiserver, "--etcd-servers=http://127.0.0.1:2379"));
  EXPECT_TRUE(Has(apiserver, "--client-ca-file=/etc/vtenant/pki/client-ca.crt"));
  EXPECT_TRUE(Has(apiserver, "--service-account-signing-key-file=/etc/vtenant/pki/sa.key"));
  auto syncer = Command(*Container(sts, "syncer"));
  EXPECT_TRUE(Has(syncer, "--tenant=nlp"));
  EXPECT_TRUE(Has(syncer, "--queue=nlp"));
  EXPECT_TRUE(Has(syncer, "--host-namespace=vtenant-nlp"));
  EXPECT_TRUE(Has(syncer, "--allowed-privileged-features=hostPath"));
  EXPECT_TRUE(Has(syncer, "--scheduler-name=kai-scheduler"));
  EXPECT_TRUE(Has(syncer, "--pod-security=baseline"));
  EXPECT_TRUE(Has(syncer,
                  "--allowed-volume-types=configMap,secret,downwardAPI,emptyDir,projected,"
                  "persistentVolumeClaim,ephemeral"));
  EXPECT_TRUE(Has(syncer, "--allowed-priority-classes=inference,train"));
  EXPECT_TRUE(Has(syncer, "--allowed-service-types=ClusterIP"));
  EXPECT_TRUE(Has(syncer, "--node-selector=pool=gpu"));
  EXPECT_TRUE(Has(syncer, "--virtual-service-host=vc-nlp.vtenant-nlp.svc"));
  // No --host-kubeconfig: the syncer is the pod's ServiceAccount on the host.
  for (const auto& a : syncer) EXPECT_EQ(a.find("--host-kubeconfig"), std::string::npos) << a;
  EXPECT_EQ(kube::GetString(*Container(sts, "etcd"), {"resources", "requests", "cpu"}), "200m");
  const rapidjson::Value& claim = sts["spec"]["volumeClaimTemplates"][0];
  EXPECT_EQ(kube::GetString(claim, {"spec", "resources", "requests", "storage"}), "5Gi");
  const std::string volumes = kube::ToJson(sts["spec"]["template"]["spec"]["volumes"]);
  EXPECT_NE(volumes.find(R"("secretName":"vc-nlp-control-plane")"), std::string::npos) << volumes;
  EXPECT_NE(volumes.find(R"("secretName":"vc-nlp-internal")"), std::string::npos) << volumes;
  EXPECT_EQ(volumes.find("vc-nlp-certs"), std::string::npos) << volumes;
  // Locked down: no root, no privilege escalation, nothing from the host.
  for (const auto& c : sts["spec"]["template"]["spec"]["containers"].GetArray()) {
    EXPECT_TRUE(c["securityContext"]["runAsNonRoot"].GetBool());
    EXPECT_FALSE(c["securityContext"]["allowPrivilegeEscalation"].GetBool());
  }
  EXPECT_EQ(kube::Find(sts, {"spec", "template", "spec", "hostNetwork"}), nullptr);
}

// The syncer's host token is mounted into the syncer's container only, and
// the pod's Secret holds no CA key.
TEST(StatefulSetBackendTest, OnlyTheSyncerSeesTheSyncersToken) {
  kube::Object sts = RenderControlPlaneStatefulSet(Request(), {});
  const rapidjson::Value& pod = sts["spec"]["template"]["spec"];
  ASSERT_TRUE(pod.HasMember("automountServiceAccountToken"));
  EXPECT_FALSE(pod["automountServiceAccountToken"].GetBool());
  for (const auto& c : pod["containers"].GetArray()) {
    const std::string mounts = kube::ToJson(c["volumeMounts"]);
    const bool token = mounts.find("host-token") != std::string::npos;
    EXPECT_EQ(token, kube::GetString(c, {"name"}) == "syncer") << mounts;
  }
  EXPECT_NE(kube::ToJson(pod["volumes"]).find(R"("serviceAccountToken":{"path":"token")"),
            std::string::npos);

  kube::Object secret = RenderControlPlaneSecret(Request());
  EXPECT_EQ(kube::Name(secret), "vc-nlp-control-plane");
  EXPECT_EQ(kube::Namespace(secret), "vtenant-nlp");
  std::vector<std::string> keys;
  for (const auto& m : secret["data"].GetObject()) keys.emplace_back(m.name.GetString());
  EXPECT_EQ(keys, (std::vector<std::string>{"ca.crt", "client-ca.crt", "apiserver.crt",
                                            "apiserver.key", "sa.key", "sa.pub",
                                            "kubelet-client.crt", "kubelet-client.key",
                                            "syncer-kubelet.crt", "syncer-kubelet.key"}));
}

// The virtual Nodes' kubelet endpoint runs in the pod beside the API
// server, and the syncer's container gets the three files it needs of the
// control plane's Secret, not the API server's or the token-signing keys.
TEST(StatefulSetBackendTest, TheSyncersKubeletEndpointGetsItsOwnFilesOnly) {
  kube::Object sts = RenderControlPlaneStatefulSet(Request(), {});
  const std::string syncer = kube::ToJson((*Container(sts, "syncer"))["command"]);
  for (const char* arg : {"--kubelet-address=127.0.0.1:10250",
                          "--kubelet-tls-cert-file=/etc/vtenant/syncer-kubelet/syncer-kubelet.crt",
                          "--kubelet-client-ca-file=/etc/vtenant/syncer-kubelet/ca.crt"}) {
    EXPECT_NE(syncer.find(arg), std::string::npos) << arg << " in " << syncer;
  }
  const std::string apiserver = kube::ToJson((*Container(sts, "kube-apiserver"))["command"]);
  EXPECT_NE(apiserver.find("--kubelet-client-certificate=/etc/vtenant/pki/kubelet-client.crt"),
            std::string::npos)
      << apiserver;
  const std::string syncer_mounts = kube::ToJson((*Container(sts, "syncer"))["volumeMounts"]);
  EXPECT_EQ(syncer_mounts.find(R"("name":"pki")"), std::string::npos) << syncer_mounts;
  std::string items;
  for (const auto& v : sts["spec"]["template"]["spec"]["volumes"].GetArray()) {
    if (kube::GetString(v, {"name"}) == "syncer-kubelet")
      items = kube::ToJson(v["secret"]["items"]);
  }
  EXPECT_EQ(items, R"([{"key":"ca.crt","path":"ca.crt"},{"key":"syncer-kubelet.crt",)"
                   R"("path":"syncer-kubelet.crt"},{"key":"syncer-kubelet.key",)"
                   R"("path":"syncer-kubelet.key"}])");
}

// The syncer reaches the virtual API server with its own token (Secret
// vc-<t>-syncer), not the control plane's system:masters kubeconfig.
TEST(StatefulSetBackendTest, TheSyncerUsesItsOwnVirtualCredential) {
  kube::Object sts = RenderControlPlaneStatefulSet(Request(), {});
  const std::string mounts = kube::ToJson((*Container(sts, "syncer"))["volumeMounts"]);
  EXPECT_EQ(mounts.find(R"("name":"kubeconfig")"), std::string::npos) << mounts;
  EXPECT_NE(mounts.find(R"("name":"syncer-credentials")"), std::string::npos) << mounts;
  EXPECT_TRUE(
      Has(Command(*Container(sts, "syncer")), "--virtual-kubeconfig=/etc/vtenant/syncer/config"));
  // The operator writes that Secret once this pod's API server answers: a
  // required volume would keep the pod, and so the API server, from starting.
  bool optional = false;
  for (const auto& v : sts["spec"]["template"]["spec"]["volumes"].GetArray()) {
    if (kube::GetString(v, {"name"}) == "syncer-credentials") {
      const rapidjson::Value* flag = kube::Find(v, {"secret", "optional"});
      optional = flag != nullptr && flag->IsTrue();
    }
  }
  EXPECT_TRUE(optional);
  ControlPlaneRequest r = Request();
  r.syncer_virtual_token = "virtual-token-1";
  kube::Object secret = RenderSyncerSecret(r);
  EXPECT_EQ(kube::Name(secret), "vc-nlp-syncer");
  EXPECT_TRUE(secret["data"].HasMember("token"));
  EXPECT_TRUE(secret["data"].HasMember("config"));

  kube::FakeClient host;
  StatefulSetBackend backend(host);
  ASSERT_TRUE(backend.Ensure(Request()).ok());
  EXPECT_FALSE(host.Get(kube::resources::kSecrets, "vtenant-nlp", "vc-nlp-syncer").ok());
  ASSERT_TRUE(backend.Ensure(r).ok());
  EXPECT_TRUE(host.Get(kube::resources::kSecrets, "vtenant-nlp", "vc-nlp-syncer").ok());
}

// The Pod Security Standards "restricted" level, written from the
// standard's text rather than from the renderer: what a pod template breaks.
std::vector<std::string> RestrictedViolations(const rapidjson::Value& pod_spec) {
  std::vector<std::string> out;
  for (const char* host : {"hostNetwork", "hostPID", "hostIPC"}) {
    if (const rapidjson::Value* v = kube::Find(pod_spec, {host}); v && v->IsBool() && v->GetBool())
      out.push_back(host);
  }
  static const std::set<std::string> kVolumeTypes = {
      "configMap", "csi",   "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
      "projected", "secret"};
  if (const rapidjson::Value* volumes = kube::Find(pod_spec, {"volumes"})) {
    for (const auto& v : volumes->GetArray()) {
      for (const auto& m : v.GetObject()) {
        const std::string key = m.name.GetString();
        if (key != "name" && !kVolumeTypes.contains(key)) out.push_back("volume type " + key);
      }
    }
  }
  auto pod_says = [&](const char* field) {
    return kube::Find(pod_spec, {"securityContext", field});
  };
  if (const rapidjson::Value* sysctls = pod_says("sysctls"); sysctls && !sysctls->Empty())
    out.push_back("sysctls");
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const rapidjson::Value* containers = kube::Find(pod_spec, {list});
    if (containers == nullptr) continue;
    for (const auto& c : containers->GetArray()) {
      const std::string name(kube::GetString(c, {"name"}));
      auto says = [&](std::initializer_list<std::string_view> path) -> const rapidjson::Value* {
        std::vector<std::string_view> full = {"securityContext"};
        full.insert(full.end(), path);
        const rapidjson::Value* at = &c;
        for (std::string_view key : full) {
          if (!at->IsObject()) return nullptr;
          auto it = at->FindMember(rapidjson::StringRef(key.data(), key.size()));
          if (it == at->MemberEnd()) return nullptr;
          at = &it->value;
        }
        return at;
      };
      const rapidjson::Value* privileged = says({"privileged"});
      if (privileged && privileged->GetBool()) out.push_back(name + ": privileged");
      const rapidjson::Value* escalation = says({"allowPrivilegeEscalation"});
      if (!escalation || escalation->GetBool()) out.push_back(name + ": privilege escalation");
      const rapidjson::Value* non_root = says({"runAsNonRoot"});
      if (!non_root) non_root = pod_says("runAsNonRoot");
      if (!non_root || !non_root->GetBool()) out.push_back(name + ": may run as root");
      const rapidjson::Value* user = says({"runAsUser"});
      if (user && user->GetInt64() == 0) out.push_back(name + ": runAsUser 0");
      const rapidjson::Value* seccomp = says({"seccompProfile", "type"});
      if (!seccomp) seccomp = kube::Find(pod_spec, {"securityContext", "seccompProfile", "type"});
      if (!seccomp || (std::string_view(seccomp->GetString()) != "RuntimeDefault" &&
                       std::string_view(seccomp->GetString()) != "Localhost"))
        out.push_back(name + ": seccomp profile");
      bool drops_all = false;
      if (const rapidjson::Value* drop = says({"capabilities", "drop"}))
        for (const auto& d : drop->GetArray())
          drops_all |= std::string_view(d.GetString()) == "ALL";
      if (!drops_all) out.push_back(name + ": capabilities not dropped");
      if (const rapidjson::Value* add = says({"capabilities", "add"}))
        for (const auto& a : add->GetArray())
          if (std::string_view(a.GetString()) != "NET_BIND_SERVICE")
            out.push_back(name + ": adds " + a.GetString());
      if (const rapidjson::Value* ports = kube::Find(c, {"ports"}))
        for (const auto& p : ports->GetArray())
          if (kube::GetInt(p, {"hostPort"}) != 0) out.push_back(name + ": hostPort");
      if (const rapidjson::Value* proc = says({"procMount"});
          proc && std::string_view(proc->GetString()) != "Default")
        out.push_back(name + ": procMount");
      if (const rapidjson::Value* hp = says({"windowsOptions", "hostProcess"}); hp && hp->GetBool())
        out.push_back(name + ": hostProcess");
    }
  }
  return out;
}

TEST(StatefulSetBackendTest, TheControlPlanePodPassesTheRestrictedLevel) {
  // Whatever the Tenant's level, the host namespace never enforces more
  // than restricted, so the pod vtenant runs there must pass it.
  ControlPlaneRequest r = Request();
  r.spec.isolation.pod_security = "restricted";
  r.spec.isolation.allowed_privileged_features.clear();
  kube::Object sts = RenderControlPlaneStatefulSet(r, {});
  std::vector<std::string> violations = RestrictedViolations(sts["spec"]["template"]["spec"]);
  EXPECT_TRUE(violations.empty()) << ::testing::PrintToString(violations);
  // The check can fail: a root container is caught.
  kube::Object root = kube::Clone(sts);
  root["spec"]["template"]["spec"]["containers"][0]["securityContext"]["runAsNonRoot"].SetBool(
      false);
  EXPECT_FALSE(RestrictedViolations(root["spec"]["template"]["spec"]).empty());
}

TEST(StatefulSetBackendTest, SelectorsUseKeysNoSyncedPodCanCarry) {
  ControlPlaneRequest r = Request();
  kube::Object sts = RenderControlPlaneStatefulSet(r, {});
  kube::Object svc = RenderControlPlaneService(r);
  const rapidjson::Value& template_labels = sts["spec"]["template"]["metadata"]["labels"];
  for (const rapidjson::Value* selector :
       {&svc["spec"]["selector"], &sts["spec"]["selector"]["matchLabels"]}) {
    ASSERT_TRUE(selector->IsObject() && !selector->ObjectEmpty());
    for (const auto& m : selector->GetObject()) {
      EXPECT_TRUE(std::string_view(m.name.GetString()).starts_with("vtenant.io/"))
          << m.name.GetString();
      EXPECT_EQ(kube::GetString(template_labels, {m.name.GetString()}), m.value.GetString());
    }
  }
  EXPECT_EQ(kube::GetString(svc, {"spec", "selector", "vtenant.io/component"}), "control-plane");
  // And never a pod the syncer made, whatever labels it carries.
  EXPECT_EQ(kube::ToJson(sts["spec"]["selector"]["matchExpressions"]),
            R"([{"key":"vtenant.io/managed-by","operator":"DoesNotExist"}])");
}

TEST(StatefulSetBackendTest, AStatefulSetWithAnOlderSelectorIsReplaced) {
  kube::FakeClient host;
  StatefulSetBackend backend(host);
  kube::Object old = RenderControlPlaneStatefulSet(Request(), {});
  old["spec"].RemoveMember("selector");
  Result<kube::Object> selector = kube::ParseJson(
      R"({"matchLabels":{"vtenant.io/tenant":"nlp","app.kubernetes.io/name":"vtenant-control-plane"}})");
  old["spec"].AddMember("selector", rapidjson::Value(*selector, old.GetAllocator()),
                        old.GetAllocator());
  ASSERT_TRUE(host.Create(kube::resources::kStatefulSets, "vtenant-nlp", old).ok());
  Result<ControlPlaneStatus> s = backend.Ensure(Request());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->control_plane.reason, "Replacing");
  EXPECT_FALSE(host.Get(kube::resources::kStatefulSets, "vtenant-nlp", "vc-nlp").ok());
  s = backend.Ensure(Request());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  kube::Object now = host.Get(kube::resources::kStatefulSets, "vtenant-nlp", "vc-nlp").value();
  EXPECT_EQ(kube::GetString(now, {"spec", "selector", "matchLabels", "vtenant.io/component"}),
            "control-plane");
}

TEST(StatefulSetBackendTest, RemoveLeavesWhatTheOperatorDidNotMake) {
  kube::FakeClient host;
  Result<kube::Object> foreign = kube::ParseJson(
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"vc-nlp","namespace":"vtenant-nlp"},
          "spec":{"ports":[{"port":80}]}})");
  ASSERT_TRUE(host.Create(kube::resources::kServices, "vtenant-nlp", *foreign).ok());
  StatefulSetBackend backend(host);
  Result<bool> removed = backend.Remove("nlp", "vtenant-nlp");
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_TRUE(*removed);
  EXPECT_TRUE(host.Get(kube::resources::kServices, "vtenant-nlp", "vc-nlp").ok());
}

TEST(StatefulSetBackendTest, DefaultVersionWhenSpecHasNone) {
  ControlPlaneRequest r = Request();
  r.spec.control_plane.kubernetes_version.clear();
  kube::Object sts = RenderControlPlaneStatefulSet(r, {.default_kubernetes_version = "v1.36.0"});
  EXPECT_EQ(kube::GetString(*Container(sts, "kube-apiserver"), {"image"}),
            "registry.k8s.io/kube-apiserver:v1.36.0");
}

TEST(StatefulSetBackendTest, ServiceFrontsTheApiServer) {
  kube::Object svc = RenderControlPlaneService(Request());
  EXPECT_EQ(kube::Name(svc), "vc-nlp");
  EXPECT_EQ(kube::GetInt(svc["spec"]["ports"][0], {"port"}), 443);
  EXPECT_EQ(kube::GetInt(svc["spec"]["ports"][0], {"targetPort"}), 6443);
  // Reached before the pod is Ready: its syncer's token is minted through it.
  const rapidjson::Value* not_ready = kube::Find(svc, {"spec", "publishNotReadyAddresses"});
  EXPECT_TRUE(not_ready != nullptr && not_ready->IsTrue());
  EXPECT_EQ(StatefulSetEndpoint(Request()), "https://vc-nlp.vtenant-nlp.svc:443");
}

// The control plane is ready when its API server container is, before the
// syncer's: the syncer waits for a token that the operator mints through
// that API server, so the pod as a whole is Ready only after the token.
TEST(StatefulSetBackendTest, ReadyWhenItsApiServerIsAndTheSyncerAfterIt) {
  kube::FakeClient host;
  StatefulSetBackend backend(host);
  Result<ControlPlaneStatus> s = backend.Ensure(Request());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->control_plane.ready);
  EXPECT_EQ(s->control_plane.reason, "PodNotReady");
  EXPECT_EQ(s->endpoint, "https://vc-nlp.vtenant-nlp.svc:443");
  EXPECT_TRUE(host.Get(kube::resources::kServices, "vtenant-nlp", "vc-nlp").ok());
  EXPECT_TRUE(host.Get(kube::resources::kSecrets, "vtenant-nlp", "vc-nlp-internal").ok());
  EXPECT_TRUE(host.Get(kube::resources::kSecrets, "vtenant-nlp", "vc-nlp-control-plane").ok());
  // What the kubelet reports of the pod's containers.
  auto report = [&](bool apiserver, bool syncer) {
    return host
        .Patch(kube::resources::kPods, "vtenant-nlp", "vc-nlp-0", kube::PatchType::kMerge,
               kube::ToJson(kube::BuildJson(kube::JsonObject{
                   {"status",
                    kube::JsonObject{
                        {"containerStatuses",
                         kube::JsonArray{
                             kube::JsonObject{{"name", "etcd"}, {"ready", true}},
                             kube::JsonObject{{"name", "kube-apiserver"}, {"ready", apiserver}},
                             kube::JsonObject{{"name", "syncer"}, {"ready", syncer}}}}}}})),
               {.subresource = "status"})
        .ok();
  };
  ASSERT_TRUE(host.Create(kube::resources::kPods, "vtenant-nlp",
                          kube::Json(R"({"apiVersion":"v1","kind":"Pod",
                              "metadata":{"name":"vc-nlp-0","namespace":"vtenant-nlp"}})"))
                  .ok());
  ASSERT_TRUE(report(false, false));
  s = backend.Ensure(Request());
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->control_plane.ready);
  EXPECT_FALSE(s->syncer.ready);

  ASSERT_TRUE(report(true, false));
  s = backend.Ensure(Request());
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->control_plane.ready);
  EXPECT_FALSE(s->syncer.ready);
  EXPECT_NE(s->syncer.message.find("vc-nlp-syncer"), std::string::npos) << s->syncer.message;

  ASSERT_TRUE(report(true, true));
  s = backend.Ensure(Request());
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->control_plane.ready);
  EXPECT_TRUE(s->syncer.ready);

  Result<bool> removed = backend.Remove("nlp", "vtenant-nlp");
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  EXPECT_FALSE(host.Get(kube::resources::kStatefulSets, "vtenant-nlp", "vc-nlp").ok());
  EXPECT_FALSE(host.Get(kube::resources::kServices, "vtenant-nlp", "vc-nlp").ok());
  EXPECT_FALSE(host.Get(kube::resources::kSecrets, "vtenant-nlp", "vc-nlp-control-plane").ok());
}

}  // namespace
}  // namespace vtenant::op

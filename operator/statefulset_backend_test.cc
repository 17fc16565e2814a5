#include "operator/statefulset_backend.h"

#include <gtest/gtest.h>

#include "kube/testing/fake_client.h"
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
                                            "apiserver.key", "sa.key", "sa.pub"}));
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
  EXPECT_EQ(StatefulSetEndpoint(Request()), "https://vc-nlp.vtenant-nlp.svc:443");
}

TEST(StatefulSetBackendTest, ReadyWhenThePodIs) {
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
  ASSERT_TRUE(host.Patch(resources::kStatefulSets, "vtenant-nlp", "vc-nlp", kube::PatchType::kMerge,
                         R"({"status":{"readyReplicas":1}})", {.subresource = "status"})
                  .ok());
  s = backend.Ensure(Request());
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->control_plane.ready);
  EXPECT_TRUE(s->syncer.ready);

  Result<bool> removed = backend.Remove("nlp", "vtenant-nlp");
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  EXPECT_FALSE(host.Get(resources::kStatefulSets, "vtenant-nlp", "vc-nlp").ok());
  EXPECT_FALSE(host.Get(kube::resources::kServices, "vtenant-nlp", "vc-nlp").ok());
  EXPECT_FALSE(host.Get(kube::resources::kSecrets, "vtenant-nlp", "vc-nlp-control-plane").ok());
}

}  // namespace
}  // namespace vtenant::op

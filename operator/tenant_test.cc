#include "operator/tenant.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::op {
namespace {

using kube::Json;

TEST(TenantTest, ParsesTheReferenceTenant) {
  kube::Object t = Json(R"({"metadata":{"name":"nlp"},"spec":{
    "displayName":"NLP team","admins":{"users":["alice"],"groups":["nlp-admins"]},
    "queue":{"parentQueue":"ml-org","priority":100,"resources":{
      "gpu":{"quota":0.33,"limit":1,"overQuotaWeight":1},
      "cpu":{"quota":-1,"limit":-1,"overQuotaWeight":1},
      "memory":{"quota":-1,"limit":-1,"overQuotaWeight":1}}},
    "controlPlane":{"backend":"statefulset","kubernetesVersion":"v1.37.2","storage":{"size":"5Gi"},
      "resources":{"requests":{"cpu":"200m","memory":"512Mi"}}},
    "isolation":{"allowedPrivilegedFeatures":["hostPath"],"nodeSelector":{"pool":"gpu"},
      "tolerations":[{"key":"gpu","operator":"Exists"}],"networkPolicy":{"enabled":false}}}})");
  Result<TenantSpec> spec = ParseTenant(t, Backend::kProcess);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "nlp");
  EXPECT_EQ(spec->display_name, "NLP team");
  EXPECT_EQ(spec->admin_users, std::vector<std::string>{"alice"});
  EXPECT_EQ(spec->admin_groups, std::vector<std::string>{"nlp-admins"});
  EXPECT_EQ(spec->queue.parent_queue, "ml-org");
  EXPECT_DOUBLE_EQ(spec->queue.gpu.quota, 0.33);
  EXPECT_DOUBLE_EQ(spec->queue.gpu.limit, 1);
  EXPECT_DOUBLE_EQ(spec->queue.cpu.quota, -1);
  EXPECT_EQ(spec->control_plane.backend, Backend::kStatefulSet);
  EXPECT_FALSE(spec->control_plane.backend_defaulted);
  EXPECT_EQ(spec->control_plane.requests.at("cpu"), "200m");
  EXPECT_EQ(spec->isolation.allowed_privileged_features, std::vector<std::string>{"hostPath"});
  EXPECT_EQ(spec->isolation.node_selector.at("pool"), "gpu");
  EXPECT_EQ(spec->isolation.tolerations_json, R"([{"key":"gpu","operator":"Exists"}])");
  EXPECT_FALSE(spec->isolation.network_policy);
}

TEST(TenantTest, EmptySpecTakesDefaults) {
  Result<TenantSpec> spec =
      ParseTenant(Json(R"({"metadata":{"name":"vision"}})"), Backend::kStatefulSet);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->control_plane.backend, Backend::kStatefulSet);
  EXPECT_TRUE(spec->control_plane.backend_defaulted);
  EXPECT_DOUBLE_EQ(spec->queue.gpu.quota, 0);
  EXPECT_DOUBLE_EQ(spec->queue.gpu.limit, -1);
  EXPECT_EQ(spec->queue.priority, 100);
  EXPECT_TRUE(spec->isolation.network_policy);
  EXPECT_EQ(spec->control_plane.storage_size, "5Gi");
}

TEST(TenantTest, ListsEveryProblemAtOnce) {
  Result<TenantSpec> spec = ParseTenant(Json(R"({"metadata":{"name":"Bad_Name"},"spec":{
    "queue":{"resources":{"gpu":{"quota":2,"limit":1},"cpu":{"quota":-0.5}}},
    "controlPlane":{"backend":"vm"},
    "isolation":{"allowedPrivilegedFeatures":["sysadmin"]}}})"),
                                        Backend::kProcess);
  ASSERT_FALSE(spec.ok());
  const std::string m = spec.status().message();
  EXPECT_NE(m.find("not a DNS label"), std::string::npos) << m;
  EXPECT_NE(m.find("spec.queue.resources.gpu: quota 2 exceeds limit 1"), std::string::npos) << m;
  EXPECT_NE(m.find("spec.queue.resources.cpu.quota -0.5 must be non-negative"), std::string::npos)
      << m;
  EXPECT_NE(m.find("backend \"vm\""), std::string::npos) << m;
  EXPECT_NE(m.find("\"sysadmin\""), std::string::npos) << m;
}

TEST(TenantTest, ParsesTheIsolationApi) {
  Result<TenantSpec> spec = ParseTenant(Json(R"({"metadata":{"name":"nlp"},"spec":{"isolation":{
      "podSecurity":"restricted",
      "allowedPrivilegedFeatures":["hostPorts","unconfinedSeccomp","windowsHostProcess"],
      "allowedTolerations":[{"key":"nvidia.com/gpu","operator":"Exists"}],
      "allowedRuntimeClasses":["nvidia"],"allowedVolumeTypes":["nfs"],
      "allowedCSIDrivers":["secrets-store.csi.k8s.io"],"allowedPriorityClasses":["train"],
      "allowedServiceTypes":["NodePort"],"allowedDeviceClasses":["gpu.nvidia.com"]}}})"),
                                        Backend::kProcess);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const IsolationSpec& iso = spec->isolation;
  EXPECT_EQ(iso.pod_security, "restricted");
  EXPECT_EQ(iso.allowed_privileged_features,
            (std::vector<std::string>{"hostPorts", "unconfinedSeccomp", "windowsHostProcess"}));
  EXPECT_EQ(iso.allowed_tolerations_json, R"([{"key":"nvidia.com/gpu","operator":"Exists"}])");
  EXPECT_EQ(iso.allowed_runtime_classes, std::vector<std::string>{"nvidia"});
  EXPECT_EQ(iso.allowed_volume_types, std::vector<std::string>{"nfs"});
  EXPECT_EQ(iso.allowed_csi_drivers, std::vector<std::string>{"secrets-store.csi.k8s.io"});
  EXPECT_EQ(iso.allowed_priority_classes, std::vector<std::string>{"train"});
  EXPECT_EQ(iso.allowed_service_types, (std::vector<std::string>{"ClusterIP", "NodePort"}));
  EXPECT_EQ(iso.allowed_device_classes, std::vector<std::string>{"gpu.nvidia.com"});
}

TEST(TenantTest, IsolationDefaults) {
  Result<TenantSpec> spec = ParseTenant(Json(R"({"metadata":{"name":"nlp"}})"), Backend::kProcess);
  ASSERT_TRUE(spec.ok());
  const IsolationSpec& iso = spec->isolation;
  EXPECT_EQ(iso.pod_security, "baseline");
  EXPECT_TRUE(iso.allowed_privileged_features.empty());
  EXPECT_EQ(iso.allowed_tolerations_json, "[]");
  EXPECT_TRUE(iso.allowed_runtime_classes.empty());
  EXPECT_TRUE(iso.allowed_device_classes.empty());
  EXPECT_TRUE(iso.allowed_volume_types.empty());      // the default list
  EXPECT_TRUE(iso.allowed_priority_classes.empty());  // every non-system host class
  EXPECT_EQ(iso.allowed_service_types, std::vector<std::string>{"ClusterIP"});
}

TEST(TenantTest, IsolationMistakesAreAllNamed) {
  Result<TenantSpec> spec = ParseTenant(Json(R"({"metadata":{"name":"nlp"},"spec":{"isolation":{
      "podSecurity":"privileged",
      "allowedPrivilegedFeatures":["root"],
      "allowedTolerations":[{"operator":"Exists"},{"key":"k","operator":"Exists","value":"v"},
                            {"key":"k","effect":"Sometimes"},{"key":"k","tolerationSeconds":1}],
      "allowedVolumeTypes":["gitRepo","hostPath"],
      "allowedServiceTypes":["ExternalName"]}}})"),
                                        Backend::kProcess);
  ASSERT_FALSE(spec.ok());
  const std::string m = spec.status().message();
  for (const char* says :
       {"spec.isolation.podSecurity must be baseline or restricted", "\"root\"",
        "every entry needs a key", "Exists takes none", "\"Sometimes\"", "\"tolerationSeconds\"",
        "\"gitRepo\"", "\"hostPath\"", "\"ExternalName\""}) {
    EXPECT_NE(m.find(says), std::string::npos) << says << "\n" << m;
  }
}

TEST(TenantTest, AllowedPriorityClassesAreTheHostsOnly) {
  const std::vector<std::string> host = {"train", "system-node-critical", "inference"};
  IsolationSpec none;
  EXPECT_EQ(AllowedPriorityClasses(none, host), (std::vector<std::string>{"inference", "train"}));
  IsolationSpec some;
  some.allowed_priority_classes = {"train", "vip", "system-node-critical"};
  EXPECT_EQ(AllowedPriorityClasses(some, host),
            (std::vector<std::string>{"system-node-critical", "train"}));
  EXPECT_TRUE(AllowedPriorityClasses(none, {}).empty());
}

TEST(TenantTest, UnlimitedLimitAllowsAnyQuota) {
  Result<TenantSpec> spec = ParseTenant(
      Json(
          R"({"metadata":{"name":"a"},"spec":{"queue":{"resources":{"gpu":{"quota":8,"limit":-1}}}}})"),
      Backend::kProcess);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
}

TEST(TenantTest, ParentCannotBeItself) {
  Result<TenantSpec> spec = ParseTenant(
      Json(R"({"metadata":{"name":"a"},"spec":{"queue":{"parentQueue":"a"}}})"), Backend::kProcess);
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("own queue"), std::string::npos);
}

TEST(TenantTest, NamesMustFitTheNamespace) {
  EXPECT_TRUE(ValidateTenantName("nlp").ok());
  EXPECT_TRUE(ValidateTenantName("team-7").ok());
  EXPECT_FALSE(ValidateTenantName("").ok());
  EXPECT_FALSE(ValidateTenantName("7team").ok());
  EXPECT_FALSE(ValidateTenantName("team-").ok());
  EXPECT_FALSE(ValidateTenantName("a.b").ok());
  EXPECT_TRUE(ValidateTenantName(std::string(55, 'a')).ok());
  EXPECT_FALSE(ValidateTenantName(std::string(56, 'a')).ok());
  EXPECT_EQ(HostNamespace("nlp"), "vtenant-nlp");
  EXPECT_EQ(KubeconfigSecretName("nlp"), "vc-nlp");
}

TEST(TenantTest, ReservedNamespacesCannotBeTaken) {
  // vtenant-system (the chart's) and vtenant-reservation (the scheduler's).
  for (const char* name : {"system", "reservation"}) {
    Status s = ValidateTenantName(name);
    EXPECT_FALSE(s.ok()) << name;
    EXPECT_NE(s.message().find("reserved"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(ValidateTenantName("systems").ok());
  for (const char* ns : {"kube-system", "kube-public", "kube-node-lease", "default"}) {
    EXPECT_FALSE(CheckNamespaceNotReserved(ns).ok()) << ns;
  }
  EXPECT_TRUE(CheckNamespaceNotReserved("vtenant-nlp").ok());
  Status deployed = CheckNamespaceNotReserved("vtenant-ops", {"vtenant-ops"});
  EXPECT_FALSE(deployed.ok());
  EXPECT_NE(deployed.message().find("where this vtenant deployment runs"), std::string::npos);
}

TEST(TenantTest, PodSecurityLevelAndItsNamespaceLabels) {
  Result<TenantSpec> plain =
      ParseTenant(Json(R"({"metadata":{"name":"a"},"spec":{}})"), Backend::kProcess);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->isolation.pod_security, "baseline");
  EXPECT_EQ(PodSecurityLabels(plain->isolation),
            (std::map<std::string, std::string>{{"pod-security.kubernetes.io/audit", "baseline"},
                                                {"pod-security.kubernetes.io/enforce", "baseline"},
                                                {"pod-security.kubernetes.io/warn", "baseline"}}));
  Result<TenantSpec> restricted =
      ParseTenant(Json(R"({"metadata":{"name":"a"},"spec":{"isolation":{"podSecurity":"restricted",
          "allowedPrivilegedFeatures":["hostPath"]}}})"),
                  Backend::kProcess);
  ASSERT_TRUE(restricted.ok()) << restricted.status().ToString();
  EXPECT_EQ(
      PodSecurityLabels(restricted->isolation),
      (std::map<std::string, std::string>{{"pod-security.kubernetes.io/audit", "restricted"},
                                          {"pod-security.kubernetes.io/enforce", "privileged"},
                                          {"pod-security.kubernetes.io/warn", "restricted"}}));
  // Picking GPUs in the environment is no Pod Security rule.
  Result<TenantSpec> gpus = ParseTenant(Json(R"({"metadata":{"name":"a"},"spec":{"isolation":{
          "allowedPrivilegedFeatures":["gpuDevices"]}}})"),
                                        Backend::kProcess);
  ASSERT_TRUE(gpus.ok()) << gpus.status().ToString();
  EXPECT_EQ(PodSecurityLabels(gpus->isolation), PodSecurityLabels(plain->isolation));
  Result<TenantSpec> bad = ParseTenant(
      Json(R"({"metadata":{"name":"a"},"spec":{"isolation":{"podSecurity":"privileged"}}})"),
      Backend::kProcess);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("podSecurity"), std::string::npos);
}

TEST(TenantTest, BackendIsImmutable) {
  TenantSpec spec;
  spec.control_plane.backend = Backend::kStatefulSet;
  EXPECT_TRUE(CheckImmutable(spec, Backend::kStatefulSet).ok());
  Status s = CheckImmutable(spec, Backend::kProcess);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("spec.controlPlane.backend is immutable"), std::string::npos);
  EXPECT_NE(s.message().find("runs on the process backend"), std::string::npos) << s.message();
}

TEST(TenantTest, ThreeThirdsFitOneGpu) {
  QuotaCheck c =
      CheckChildrenQuota("ml-org", 1, {{"nlp", 0.33}, {"vision", 0.33}, {"recsys", 0.33}});
  EXPECT_FALSE(c.overcommitted) << c.message;
  EXPECT_NE(c.message.find("0.99"), std::string::npos) << c.message;
}

TEST(TenantTest, ChildrenAboveParentOvercommit) {
  QuotaCheck c = CheckChildrenQuota("ml-org", 1, {{"nlp", 0.5}, {"vision", 0.6}});
  EXPECT_TRUE(c.overcommitted);
  EXPECT_NE(c.message.find("1.1 in total"), std::string::npos) << c.message;
  EXPECT_TRUE(CheckChildrenQuota("ml-org", 1, {{"nlp", -1}}).overcommitted);
  EXPECT_FALSE(CheckChildrenQuota("ml-org", -1, {{"nlp", 5}}).overcommitted);
}

}  // namespace
}  // namespace vtenant::op

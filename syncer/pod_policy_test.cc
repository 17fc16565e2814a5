#include "syncer/pod_policy.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

// Pod default/p of `spec`, with `annotations`.
kube::Object PodWith(const rapidjson::Value& spec, const kube::JsonObject& annotations = {}) {
  return kube::BuildJson(kube::JsonObject{
      {"metadata",
       kube::JsonObject{{"name", "p"}, {"namespace", "default"}, {"annotations", annotations}}},
      {"spec", kube::JsonValue(spec)}});
}

// The same, its spec written as JSON.
kube::Object PodWith(const std::string& spec, const kube::JsonObject& annotations = {}) {
  return PodWith(Json(spec), annotations);
}

TEST(PodPolicyTest, PlainPodIsAllowed) {
  EXPECT_FALSE(CheckPod(PodWith(R"({"containers":[{"name":"c","image":"i"}]})"), NlpConfig()));
}

TEST(PodPolicyTest, PrivilegedContainerIsRefusedUnlessAllowed) {
  kube::Object pod =
      PodWith(R"({"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]})");
  std::optional<Refusal> refusal = CheckPod(pod, NlpConfig());
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->reason, "PrivilegedFeatureNotAllowed");
  EXPECT_NE(refusal->message.find("spec.containers[c].securityContext.privileged"),
            std::string::npos);
  SyncerConfig allowed = NlpConfig();
  allowed.allowed_privileged_features = {"privileged"};
  EXPECT_FALSE(CheckPod(pod, allowed));
}

TEST(PodPolicyTest, EachHostFeatureIsItsOwnPermission) {
  struct Case {
    std::string spec;
    std::string feature;
  } cases[] = {
      {R"({"hostNetwork":true,"containers":[]})", "hostNetwork"},
      {R"({"hostPID":true,"containers":[]})", "hostPID"},
      {R"({"hostIPC":true,"containers":[]})", "hostIPC"},
      {R"({"volumes":[{"name":"root","hostPath":{"path":"/"}}],"containers":[]})", "hostPath"},
      {R"({"initContainers":[{"name":"i","securityContext":{"capabilities":{"add":["NET_ADMIN"]}}}]})",
       "capabilities"},
      {R"({"ephemeralContainers":[{"name":"e","securityContext":{"privileged":true}}]})",
       "privileged"},
  };
  for (const Case& c : cases) {
    kube::Object pod = PodWith(c.spec);
    std::optional<Refusal> refusal = CheckPod(pod, NlpConfig());
    ASSERT_TRUE(refusal) << c.spec;
    EXPECT_NE(refusal->message.find("\"" + c.feature + "\""), std::string::npos)
        << refusal->message;
    SyncerConfig allowed = NlpConfig();
    allowed.allowed_privileged_features = {c.feature};
    EXPECT_FALSE(CheckPod(pod, allowed)) << c.spec;
  }
}

TEST(PodPolicyTest, DroppedCapabilitiesAreFine) {
  EXPECT_FALSE(CheckPod(
      PodWith(
          R"({"containers":[{"name":"c","securityContext":{"capabilities":{"drop":["ALL"]}}}]})"),
      NlpConfig()));
}

TEST(PodPolicyTest, GpuFractionMustBeAShareOfOneGpu) {
  for (const char* good : {"0.33", "1", "0.5", "1.0", "1e-1", "0.0001"}) {
    EXPECT_FALSE(CheckPod(PodWith("{}", {{"gpu-fraction", good}}), NlpConfig())) << good;
  }
  for (const char* bad : {"1.5", "0", "-0.5", "abc", "", "500m", "1.0001"}) {
    std::optional<Refusal> refusal = CheckPod(PodWith("{}", {{"gpu-fraction", bad}}), NlpConfig());
    ASSERT_TRUE(refusal) << bad;
    EXPECT_EQ(refusal->reason, "InvalidGpuAnnotation");
    EXPECT_NE(refusal->message.find("gpu-fraction"), std::string::npos);
  }
}

TEST(PodPolicyTest, GpuMemoryMustBePositiveMiB) {
  EXPECT_FALSE(CheckPod(PodWith("{}", {{"gpu-memory", "4096"}}), NlpConfig()));
  for (const char* bad : {"-1", "0", "4Gi", "1.5", ""}) {
    std::optional<Refusal> refusal = CheckPod(PodWith("{}", {{"gpu-memory", bad}}), NlpConfig());
    ASSERT_TRUE(refusal) << bad;
    EXPECT_EQ(refusal->reason, "InvalidGpuAnnotation");
  }
}

TEST(PodPolicyTest, FractionAndMemoryTogetherAreRefused) {
  std::optional<Refusal> refusal =
      CheckPod(PodWith("{}", {{"gpu-fraction", "0.5"}, {"gpu-memory", "1024"}}), NlpConfig());
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->message.find("both"), std::string::npos);
}

// As KAI and the host's scheduler: a share (by fraction or by memory) on
// several devices. kai/contract_test.cc has the whole table.
TEST(PodPolicyTest, NumDevicesNeedsAShare) {
  EXPECT_FALSE(CheckPod(PodWith("{}", {{"gpu-fraction", "0.5"}, {"gpu-fraction-num-devices", "2"}}),
                        NlpConfig()));
  EXPECT_FALSE(CheckPod(PodWith("{}", {{"gpu-memory", "4000"}, {"gpu-fraction-num-devices", "2"}}),
                        NlpConfig()));
  EXPECT_TRUE(CheckPod(PodWith("{}", {{"gpu-fraction", "0.5"}, {"gpu-fraction-num-devices", "65"}}),
                       NlpConfig()));
  EXPECT_TRUE(CheckPod(PodWith("{}", {{"gpu-fraction-num-devices", "2"}}), NlpConfig()));
  EXPECT_TRUE(CheckPod(PodWith("{}", {{"gpu-fraction", "0.5"}, {"gpu-fraction-num-devices", "x"}}),
                       NlpConfig()));
}

TEST(PodPolicyTest, PriorityClassMustExistOnTheHost) {
  EXPECT_FALSE(CheckPod(PodWith(R"({"priorityClassName":"train"})"), NlpConfig()));
  EXPECT_FALSE(CheckPod(PodWith(R"({"priorityClassName":"system-node-critical"})"), NlpConfig()));
  std::optional<Refusal> refusal = CheckPod(PodWith(R"({"priorityClassName":"vip"})"), NlpConfig());
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->reason, "PriorityClassNotAllowed");
  EXPECT_NE(refusal->message.find("train"), std::string::npos);
}

// KAI's pod grouper takes the group's class from the label when the pod
// names none: the same classes, and no system class by label.
TEST(PodPolicyTest, APriorityClassLabelMustBeAClassTheTenantMayUse) {
  auto labelled = [](const char* value) {
    kube::Object pod = PodWith("{}");
    kube::SetString(pod, {"metadata", "labels"}, "priorityClassName", value);
    return pod;
  };
  EXPECT_FALSE(CheckPod(labelled("train"), NlpConfig()));
  EXPECT_FALSE(CheckPod(labelled(""), NlpConfig())) << "empty: the default class";
  for (const char* taken : {"system-node-critical", "vip"}) {
    std::optional<Refusal> refusal = CheckPod(labelled(taken), NlpConfig());
    ASSERT_TRUE(refusal) << taken;
    EXPECT_EQ(refusal->reason, "PriorityClassNotAllowed");
    EXPECT_NE(refusal->message.find("label priorityClassName"), std::string::npos)
        << refusal->message;
  }
}

TEST(PodPolicyTest, SecurityRefusalsNameEveryFieldAndTheSettingThatWouldAllowIt) {
  kube::Object pod = PodWith(R"({"hostNetwork":true,"containers":[{"name":"c","image":"i",
      "ports":[{"containerPort":80,"hostPort":80}],
      "livenessProbe":{"httpGet":{"host":"10.0.0.1","port":80}}}]})");
  std::optional<Refusal> refusal = CheckPod(pod, NlpConfig());
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->reason, "PrivilegedFeatureNotAllowed");
  for (const char* says :
       {"spec.hostNetwork", "\"hostNetwork\"", "allowedPrivilegedFeatures",
        "spec.containers[c].ports[80].hostPort", "\"hostPorts\"",
        "spec.containers[c].livenessProbe.httpGet.host", "no Tenant setting allows"}) {
    EXPECT_NE(refusal->message.find(says), std::string::npos) << says << "\n" << refusal->message;
  }
  // What no exception lifts has its own reason.
  SyncerConfig allowed = NlpConfig();
  allowed.allowed_privileged_features = {"hostNetwork", "hostPorts"};
  refusal = CheckPod(pod, allowed);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->reason, "PodSecurityViolation");
}

TEST(PodPolicyTest, RestrictedIsATenantOption) {
  kube::Object pod = PodWith(R"({"containers":[{"name":"c","image":"i"}]})");
  SyncerConfig restricted = NlpConfig();
  restricted.pod_security = PodSecurityLevel::kRestricted;
  EXPECT_FALSE(CheckPod(pod, NlpConfig()));
  std::optional<Refusal> refusal = CheckPod(pod, restricted);
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->message.find("spec.isolation.podSecurity"), std::string::npos)
      << refusal->message;
}

TEST(PodPolicyTest, VolumeTypesComeFromTheTenant) {
  struct Row {
    std::string volume;
    std::string reason;  // "" = allowed by default
  } rows[] = {
      {R"({"name":"v","emptyDir":{}})", ""},
      {R"({"name":"v","configMap":{"name":"c"}})", ""},
      {R"({"name":"v","secret":{"secretName":"s"}})", ""},
      {R"({"name":"v","downwardAPI":{}})", ""},
      {R"({"name":"v","projected":{"sources":[]}})", ""},
      {R"({"name":"v","persistentVolumeClaim":{"claimName":"c"}})", ""},
      {R"({"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{}}}})", ""},
      {R"({"name":"v","nfs":{"server":"s","path":"/"}})", "VolumeTypeNotAllowed"},
      {R"({"name":"v","image":{"reference":"r"}})", "VolumeTypeNotAllowed"},
      {R"({"name":"v","iscsi":{}})", "VolumeTypeNotAllowed"},
      {R"({"name":"v","gitRepo":{"repository":"r"}})", "VolumeTypeNotAllowed"},
      {R"({"name":"v","csi":{"driver":"secrets-store.csi.k8s.io"}})", "CSIDriverNotAllowed"},
      {R"({"name":"v","hostPath":{"path":"/"}})", "PrivilegedFeatureNotAllowed"},
  };
  for (const Row& row : rows) {
    std::optional<Refusal> refusal = CheckPod(
        PodWith(kube::BuildJson(
            kube::JsonObject{{"volumes", kube::JsonArray{kube::JsonValue(Json(row.volume))}}})),
        NlpConfig());
    EXPECT_EQ(refusal ? refusal->reason : "", row.reason) << row.volume;
  }
  SyncerConfig opted = NlpConfig();
  opted.allowed_volume_types = {"nfs", "image"};
  opted.allowed_csi_drivers = {"secrets-store.csi.k8s.io"};
  EXPECT_FALSE(CheckPod(PodWith(R"({"volumes":[{"name":"v","nfs":{}},{"name":"w","image":{}},
      {"name":"x","csi":{"driver":"secrets-store.csi.k8s.io"}}]})"),
                        opted));
  std::optional<Refusal> no_git =
      CheckPod(PodWith(R"({"volumes":[{"name":"v","gitRepo":{}}]})"), opted);
  ASSERT_TRUE(no_git);
  EXPECT_NE(no_git->message.find("never"), std::string::npos);
  std::optional<Refusal> secret =
      CheckPod(PodWith(R"({"volumes":[{"name":"v","secret":{}}]})"), opted);
  ASSERT_TRUE(secret);
  EXPECT_NE(secret->message.find("allowedVolumeTypes: image, nfs"), std::string::npos)
      << secret->message;
}

TEST(PodPolicyTest, InlineClaimsAreTheTenantsOwn) {
  auto with_spec = [](const std::string& claim_spec) {
    const kube::JsonObject claim_template{{"spec", kube::JsonValue(Json(claim_spec))}};
    return PodWith(kube::BuildJson(kube::JsonObject{
        {"volumes",
         kube::JsonArray{kube::JsonObject{
             {"name", "scratch"},
             {"ephemeral", kube::JsonObject{{"volumeClaimTemplate", claim_template}}}}}}}));
  };
  EXPECT_FALSE(CheckPod(with_spec(R"({"storageClassName":"fast",
      "dataSource":{"kind":"PersistentVolumeClaim","name":"seed"}})"),
                        NlpConfig()));
  for (
      const char* bad : {
          R"({"selector":{"matchLabels":{"owner":"other-team"}}})",
          R"({"volumeName":"pv-of-another-tenant"})",
          R"({"dataSource":{"kind":"VolumeSnapshot","apiGroup":"snapshot.storage.k8s.io","name":"s"}})",
          R"({"dataSourceRef":{"kind":"PersistentVolumeClaim","name":"db","namespace":"other"}})",
      }) {
    std::optional<Refusal> refusal = CheckPod(with_spec(bad), NlpConfig());
    ASSERT_TRUE(refusal) << bad;
    EXPECT_EQ(refusal->reason, "VolumeClaimNotAllowed") << bad;
    EXPECT_NE(refusal->message.find("spec.volumes[scratch].ephemeral.volumeClaimTemplate.spec."),
              std::string::npos)
        << refusal->message;
  }
}

TEST(PodPolicyTest, RuntimeClassesComeFromTheTenant) {
  kube::Object pod = PodWith(R"({"runtimeClassName":"nvidia"})");
  std::optional<Refusal> refusal = CheckPod(pod, NlpConfig());
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->reason, "RuntimeClassNotAllowed");
  EXPECT_NE(refusal->message.find("allowedRuntimeClasses: none"), std::string::npos);
  SyncerConfig allowed = NlpConfig();
  allowed.allowed_runtime_classes = {"nvidia"};
  EXPECT_FALSE(CheckPod(pod, allowed));
}

TEST(PodPolicyTest, ResourceClaimsNeedTheTenantsDeviceClasses) {
  SyncerConfig allowed = NlpConfig();
  allowed.allowed_device_classes = {"gpu.example.com"};
  for (const char* spec : {
           R"({"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}]})",
           R"({"resourceClaims":[{"name":"gpu","resourceClaimName":"c"}]})",
           R"({"containers":[{"name":"c","resources":{"claims":[{"name":"gpu"}]}}]})",
       }) {
    std::optional<Refusal> refusal = CheckPod(PodWith(spec), NlpConfig());
    ASSERT_TRUE(refusal) << spec;
    EXPECT_EQ(refusal->reason, "ResourceClaimsNotAllowed");
    EXPECT_NE(refusal->message.find("allowedDeviceClasses: none"), std::string::npos);
    EXPECT_FALSE(CheckPod(PodWith(spec), allowed)) << spec;
  }
}

// A container that names its GPUs in its environment would get them on a
// node whose container toolkit reads the variable, past the device plugin
// and every queue.
TEST(PodPolicyTest, PickingGpusInTheEnvironmentIsAPrivilegedFeature) {
  auto with_env = [](const std::string& list, const std::string& var) {
    return PodWith(kube::BuildJson(
        kube::JsonObject{{list, kube::JsonArray{kube::JsonObject{
                                    {"name", "c"},
                                    {"image", "i"},
                                    {"env", kube::JsonArray{kube::JsonValue(Json(var))}}}}}}));
  };
  for (const std::string list : {"initContainers", "containers", "ephemeralContainers"}) {
    for (
        const std::string var : {
            R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"all"})",
            R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"GPU-0f3c"})",
            R"({"name":"NVIDIA_VISIBLE_DEVICES","valueFrom":{"configMapKeyRef":{"name":"m","key":"k"}}})",
            R"({"name":"NVIDIA_MIG_CONFIG_DEVICES","value":"all"})",
            R"({"name":"NVIDIA_MIG_MONITOR_DEVICES","value":"0"})",
        }) {
      SCOPED_TRACE(list + " " + var);
      std::optional<Refusal> refusal = CheckPod(with_env(list, var), NlpConfig());
      ASSERT_TRUE(refusal);
      EXPECT_EQ(refusal->reason, "PrivilegedFeatureNotAllowed");
      EXPECT_NE(refusal->message.find("spec." + list + "[c].env["), std::string::npos)
          << refusal->message;
      EXPECT_NE(refusal->message.find("\"gpuDevices\""), std::string::npos) << refusal->message;
      SyncerConfig allowed = NlpConfig();
      allowed.allowed_privileged_features = {"gpuDevices"};
      EXPECT_FALSE(CheckPod(with_env(list, var), allowed));
    }
    // Values that pick no device, and look-alike names, are anyone's.
    for (const std::string var : {
             R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"void"})",
             R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"none"})",
             R"({"name":"NVIDIA_VISIBLE_DEVICES","value":""})",
             R"({"name":"NVIDIA_VISIBLE_DEVICES"})",
             R"({"name":"CUDA_VISIBLE_DEVICES","value":"0"})",
             R"({"name":"nvidia_visible_devices","value":"all"})",
         }) {
      EXPECT_FALSE(CheckPod(with_env(list, var), NlpConfig())) << list << " " << var;
    }
  }
}

TEST(PodPolicyTest, WithoutHostClassesNoPriorityClassPasses) {
  SyncerConfig none = NlpConfig();
  none.allowed_priority_classes.clear();
  std::optional<Refusal> refusal = CheckPod(PodWith(R"({"priorityClassName":"train"})"), none);
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->message.find("none"), std::string::npos);
}

}  // namespace
}  // namespace vtenant::syncer

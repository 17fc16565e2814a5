#include "syncer/pod_policy.h"

#include <gtest/gtest.h>

#include "syncer/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

kube::Object PodWith(const std::string& spec, const std::string& annotations = "{}") {
  return Json(R"({"metadata":{"name":"p","namespace":"default","annotations":)" + annotations +
              R"(},"spec":)" + spec + "}");
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
    EXPECT_FALSE(
        CheckPod(PodWith("{}", std::string(R"({"gpu-fraction":")") + good + "\"}"), NlpConfig()))
        << good;
  }
  for (const char* bad : {"1.5", "0", "-0.5", "abc", "", "500m", "1.0001"}) {
    std::optional<Refusal> refusal =
        CheckPod(PodWith("{}", std::string(R"({"gpu-fraction":")") + bad + "\"}"), NlpConfig());
    ASSERT_TRUE(refusal) << bad;
    EXPECT_EQ(refusal->reason, "InvalidGpuAnnotation");
    EXPECT_NE(refusal->message.find("gpu-fraction"), std::string::npos);
  }
}

TEST(PodPolicyTest, GpuMemoryMustBePositiveMiB) {
  EXPECT_FALSE(CheckPod(PodWith("{}", R"({"gpu-memory":"4096"})"), NlpConfig()));
  for (const char* bad : {"-1", "0", "4Gi", "1.5", ""}) {
    std::optional<Refusal> refusal =
        CheckPod(PodWith("{}", std::string(R"({"gpu-memory":")") + bad + "\"}"), NlpConfig());
    ASSERT_TRUE(refusal) << bad;
    EXPECT_EQ(refusal->reason, "InvalidGpuAnnotation");
  }
}

TEST(PodPolicyTest, FractionAndMemoryTogetherAreRefused) {
  std::optional<Refusal> refusal =
      CheckPod(PodWith("{}", R"({"gpu-fraction":"0.5","gpu-memory":"1024"})"), NlpConfig());
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->message.find("both"), std::string::npos);
}

// As KAI and the host's scheduler: a share (by fraction or by memory) on
// several devices. kai/contract_test.cc has the whole table.
TEST(PodPolicyTest, NumDevicesNeedsAShare) {
  EXPECT_FALSE(CheckPod(PodWith("{}", R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"2"})"),
                        NlpConfig()));
  EXPECT_FALSE(CheckPod(PodWith("{}", R"({"gpu-memory":"4000","gpu-fraction-num-devices":"2"})"),
                        NlpConfig()));
  EXPECT_TRUE(CheckPod(PodWith("{}", R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"65"})"),
                       NlpConfig()));
  EXPECT_TRUE(CheckPod(PodWith("{}", R"({"gpu-fraction-num-devices":"2"})"), NlpConfig()));
  EXPECT_TRUE(CheckPod(PodWith("{}", R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"x"})"),
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

}  // namespace
}  // namespace vtenant::syncer

// The webhook's decisions: which pods get the ConfigMap reference, which are refused.
#include "scheduler/admission.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "kube/testing/json.h"

namespace vtenant::scheduler {
namespace {

AdmissionOptions Fixed() {
  return {.random_suffix = [] { return std::string("abcdefg"); }};
}

using kube::Json;

TEST(AdmissionTest, SharingPodGetsAnnotationAndEnvFromOnEveryContainer) {
  Result<std::string> patch =
      MutatePod(Json(R"({"metadata":{"name":"p","ownerReferences":[{"name":"job-1"}],
      "annotations":{"gpu-fraction":"0.5"}},"spec":{"schedulerName":"kai-scheduler",
      "containers":[{"name":"a"},{"name":"b","envFrom":[{"secretRef":{"name":"s"}}]}]}})"),
                Fixed());
  ASSERT_TRUE(patch.ok()) << patch.status().ToString();
  EXPECT_EQ(
      *patch,
      R"([{"op":"add","path":"/metadata/annotations/runai~1shared-gpu-configmap","value":"job-1-abcdefg-shared-gpu"},)"
      R"({"op":"add","path":"/spec/containers/0/envFrom","value":[{"configMapRef":{"name":"job-1-abcdefg-shared-gpu-0"}}]},)"
      R"({"op":"add","path":"/spec/containers/1/envFrom/-","value":{"configMapRef":{"name":"job-1-abcdefg-shared-gpu-0"}}}])");
}

// A ConfigMap prefix already on the pod is the writer's text: on the host
// only the syncer writes pods of tenants, and it drops a team's runai/
// annotations (SyncerIntegrationTest.HostilePodsAreRefusedOrNeutralised), but
// the patch must stay one add per container whatever the text holds.
TEST(AdmissionTest, APrefixOnThePodCannotAddOperationsToThePatch) {
  const std::string hostile = R"(x"}},{"op":"add","path":"/spec/nodeName","value":"n)"
                              "\n";
  const kube::Object pod = kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", "p"},
                                    {"annotations",
                                     kube::JsonObject{{"gpu-fraction", "0.5"},
                                                      {"runai/shared-gpu-configmap", hostile}}}}},
      {"spec",
       kube::JsonObject{{"schedulerName", "kai-scheduler"},
                        {"containers", kube::JsonArray{kube::JsonObject{{"name", "a"}}}}}}});
  Result<std::string> patch = MutatePod(pod, Fixed());
  ASSERT_TRUE(patch.ok()) << patch.status().ToString();
  Result<kube::Object> ops = kube::ParseJson(*patch);
  ASSERT_TRUE(ops.ok()) << *patch;
  ASSERT_TRUE(ops->IsArray());
  ASSERT_EQ(ops->Size(), 1u) << *patch;
  EXPECT_EQ(kube::GetString((*ops)[0], {"path"}), "/spec/containers/0/envFrom");
  EXPECT_EQ(kube::GetString((*ops)[0]["value"][0], {"configMapRef", "name"}), hostile + "-0");
}

TEST(AdmissionTest, OtherPodsAreLeftAlone) {
  EXPECT_EQ(MutatePod(Json(R"({"metadata":{"name":"p"},"spec":{"schedulerName":"kai-scheduler",
      "containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})"),
                      Fixed())
                .value(),
            "");
  EXPECT_EQ(MutatePod(Json(R"({"metadata":{"name":"p","annotations":{"gpu-fraction":"7"}},
      "spec":{"schedulerName":"default-scheduler","containers":[]}})"),
                      Fixed())
                .value(),
            "");
}

TEST(AdmissionTest, ReviewRefusesMalformedRequestsWithTheReason) {
  Result<std::string> r =
      Review(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"42",
      "object":{"metadata":{"name":"p","annotations":{"gpu-fraction":"1.5"}},"spec":{"schedulerName":"kai-scheduler",
      "containers":[{"name":"a"}]}}}})",
             Fixed());
  ASSERT_TRUE(r.ok());
  kube::Object doc = Json(*r);
  EXPECT_EQ(kube::GetString(doc, {"response", "uid"}), "42");
  EXPECT_FALSE(doc["response"]["allowed"].GetBool());
  EXPECT_NE(kube::GetString(doc, {"response", "status", "message"}).find("gpu-fraction"),
            std::string::npos);
}

TEST(AdmissionTest, ReviewAllowsWithABase64JsonPatch) {
  Result<std::string> r = Review(
      R"({"request":{"uid":"1","object":{"metadata":{"name":"p","annotations":{"gpu-memory":"4000"}},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"a"}]}}}})",
      Fixed());
  ASSERT_TRUE(r.ok());
  kube::Object doc = Json(*r);
  EXPECT_TRUE(doc["response"]["allowed"].GetBool());
  EXPECT_EQ(kube::GetString(doc, {"response", "patchType"}), "JSONPatch");
  EXPECT_FALSE(kube::GetString(doc, {"response", "patch"}).empty());
  EXPECT_FALSE(Review("{}", Fixed()).ok());
}

TEST(AdmissionTest, RandomSuffixIsSevenSafeCharacters) {
  std::string s = RandomSuffix();
  EXPECT_EQ(s.size(), 7u);
  EXPECT_EQ(s.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos);
}

}  // namespace
}  // namespace vtenant::scheduler

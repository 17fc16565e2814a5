#include "syncer/host_identity.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;

// Host object "h" with these annotations and labels, each the JSON text of
// an object.
kube::Object HostObject(const std::string& annotations,
                        const std::string& labels = R"({"vtenant.io/managed-by":"vtenant-syncer",
                                                        "vtenant.io/tenant":"nlp"})") {
  return kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", "h"},
                                    {"namespace", "vtenant-nlp"},
                                    {"labels", kube::JsonValue(Json(labels))},
                                    {"annotations", kube::JsonValue(Json(annotations))}}}});
}

constexpr char kConfigA[] = R"({"vtenant.io/virtual-namespace":"ml","vtenant.io/virtual-name":"a",)"
                            R"("vtenant.io/virtual-uid":"u1"})";

TEST(HostIdentityTest, ACopyStandsForTheObjectItRecords) {
  kube::Object host = HostObject(kConfigA);
  EXPECT_TRUE(CheckIdentity(host, "ConfigMap", {"ConfigMap", "ml", "a", ""}, "nlp").ok());
  EXPECT_TRUE(CheckIdentity(host, "ConfigMap", {"ConfigMap", "ml", "a", "u1"}, "nlp").ok());
  // An older incarnation's copy is still this name's, unless the UID is asked for.
  EXPECT_EQ(CheckIdentity(host, "ConfigMap", {"ConfigMap", "ml", "a", "u2"}, "nlp").code(),
            StatusCode::kAlreadyExists);
}

TEST(HostIdentityTest, TheVirtualKeyComesFromBothAnnotationsOrNone) {
  EXPECT_EQ(VirtualKeyOf(HostObject(kConfigA)), "ml/a");
  EXPECT_EQ(VirtualKeyOf(HostObject(R"({"vtenant.io/virtual-name":"a"})")), std::nullopt);
  EXPECT_EQ(VirtualKeyOf(HostObject(R"({"vtenant.io/virtual-namespace":"ml"})")), std::nullopt);
}

TEST(HostIdentityTest, AnotherVirtualObjectsCopyClashesAndTheMessageNamesBoth) {
  kube::Object host =
      HostObject(R"({"vtenant.io/virtual-namespace":"b-x-c","vtenant.io/virtual-name":"a"})");
  Status clash = CheckIdentity(host, "ConfigMap", {"ConfigMap", "c", "a-x-b", ""}, "nlp");
  ASSERT_EQ(clash.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(clash.message().find("ConfigMap c/a-x-b"), std::string::npos) << clash.message();
  EXPECT_NE(clash.message().find("ConfigMap b-x-c/a"), std::string::npos) << clash.message();
  EXPECT_NE(clash.message().find("host ConfigMap h"), std::string::npos) << clash.message();
}

TEST(HostIdentityTest, ObjectsTheSyncerDidNotMakeForThisTenantClash) {
  // The operator's Secret: no syncer labels.
  kube::Object operators = HostObject("{}", R"({"vtenant.io/tenant":"nlp"})");
  Status clash = CheckIdentity(operators, "Secret", {"Secret", "ml", "a", ""}, "nlp");
  ASSERT_EQ(clash.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(clash.message().find("not made by vtenant-syncer"), std::string::npos);
  // Another tenant's labels.
  EXPECT_FALSE(CheckIdentity(HostObject(kConfigA, R"({"vtenant.io/managed-by":"vtenant-syncer",
      "vtenant.io/tenant":"cv"})"),
                             "ConfigMap", {"ConfigMap", "ml", "a", ""}, "nlp")
                   .ok());
  // Labelled, but recording nothing.
  EXPECT_FALSE(
      CheckIdentity(HostObject("{}"), "ConfigMap", {"ConfigMap", "ml", "a", ""}, "nlp").ok());
}

TEST(HostIdentityTest, OneHostKindServingTwoPurposesTellsThemApart) {
  // A pod's token Secret and the copy of a Secret of the same name.
  kube::Object token = HostObject(R"({"vtenant.io/virtual-kind":"Pod",
      "vtenant.io/virtual-namespace":"ml","vtenant.io/virtual-name":"a"})");
  EXPECT_TRUE(CheckIdentity(token, "Secret", {"Pod", "ml", "a", ""}, "nlp").ok());
  Status clash = CheckIdentity(token, "Secret", {"Secret", "ml", "a", ""}, "nlp");
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.message().find("the service-account token of Pod ml/a"), std::string::npos)
      << clash.message();
  // A workload's PodGroup and a virtual PodGroup, told apart by the owner chain.
  kube::Object job_group = HostObject(R"({"vtenant.io/virtual-namespace":"ml",
      "vtenant.io/virtual-name":"etl","vtenant.io/virtual-uid":"j1",
      "vtenant.io/owner-chain":"[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"etl\",\"uid\":\"j1\"}]"})");
  EXPECT_TRUE(CheckIdentity(job_group, "PodGroup", {"Job", "ml", "etl", "j1"}, "nlp").ok());
  EXPECT_FALSE(CheckIdentity(job_group, "PodGroup", {"PodGroup", "ml", "etl", ""}, "nlp").ok());
  EXPECT_FALSE(CheckIdentity(job_group, "PodGroup", {"Job", "ml", "etl", "j2"}, "nlp").ok());
}

TEST(HostIdentityTest, ATakenNameIsReadBackAndChecked) {
  kube::FakeClient host;
  kube::Object mine = HostObject(kConfigA);
  ASSERT_TRUE(host.Create(kube::resources::kConfigMaps, "vtenant-nlp", mine).ok());
  EXPECT_TRUE(CheckTakenName(host, kube::resources::kConfigMaps, "vtenant-nlp", "h",
                             {"ConfigMap", "ml", "a", ""}, "nlp")
                  .ok());
  EXPECT_EQ(CheckTakenName(host, kube::resources::kConfigMaps, "vtenant-nlp", "h",
                           {"ConfigMap", "ml", "b", ""}, "nlp")
                .code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(CheckTakenName(host, kube::resources::kConfigMaps, "vtenant-nlp", "gone",
                           {"ConfigMap", "ml", "a", ""}, "nlp")
                .code(),
            StatusCode::kUnavailable);
}

}  // namespace
}  // namespace vtenant::syncer

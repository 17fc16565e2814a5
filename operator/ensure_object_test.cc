#include "operator/ensure_object.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/json.h"

namespace vtenant::op {
namespace {

// Object "x" whose labels are the JSON object `labels`.
kube::Object WithLabels(const std::string& labels) {
  return kube::BuildJson(kube::JsonObject{
      {"metadata",
       kube::JsonObject{{"name", "x"}, {"labels", kube::JsonValue(kube::Json(labels))}}}});
}

TEST(OwnedByOperatorTest, TheOperatorsLabelsMakeItsOwn) {
  kube::Object own = WithLabels(
      R"({"app.kubernetes.io/managed-by":"vtenant-operator","vtenant.io/tenant":"nlp"})");
  EXPECT_TRUE(OwnedByOperator(own, "nlp"));
  EXPECT_TRUE(OwnedByOperator(own, ""));
  EXPECT_FALSE(OwnedByOperator(own, "vision"));
  EXPECT_FALSE(OwnedByOperator(WithLabels(R"({"vtenant.io/tenant":"nlp"})"), "nlp"));
}

// A tenant can write app.kubernetes.io/ labels on what the syncer copies to
// its host namespace; such a copy is never taken for the operator's.
TEST(OwnedByOperatorTest, ASyncersCopyIsNeverTheOperatorsWhateverItsLabelsSay) {
  kube::Object copy = WithLabels(
      R"({"app.kubernetes.io/managed-by":"vtenant-operator","vtenant.io/tenant":"nlp",
          "vtenant.io/managed-by":"vtenant-syncer"})");
  EXPECT_FALSE(OwnedByOperator(copy, "nlp"));
  EXPECT_FALSE(OwnedByOperator(copy, ""));
  EXPECT_FALSE(CheckOwnedByOperator(copy, kube::resources::kConfigMaps, "nlp").ok());
}

// The header's promise: a pass where nothing drifted costs one GET per
// object and no writes, for objects that must be the operator's too.
TEST(EnsureObjectTest, AnUnchangedObjectCostsOneReadAndNoWrite) {
  kube::FakeClient client;
  const kube::Object desired = kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata",
       kube::JsonObject{{"name", "x"},
                        {"namespace", "ns"},
                        {"labels", kube::JsonObject{{kManagedByLabel, kManagedByOperator},
                                                    {"vtenant.io/tenant", "nlp"}}}}},
      {"data", kube::JsonObject{{"k", "v"}}}});
  const kube::ResourceType& type = kube::resources::kConfigMaps;
  EXPECT_EQ(EnsureOwnedObject(client, type, "ns", desired, "nlp").value(), Ensured::kCreated);
  EXPECT_EQ(EnsureObject(client, type, "ns", desired).value(), Ensured::kUnchanged);
  const int gets = client.Calls("get");
  EXPECT_EQ(EnsureOwnedObject(client, type, "ns", desired, "nlp").value(), Ensured::kUnchanged);
  EXPECT_EQ(client.Calls("get"), gets + 1);
  EXPECT_EQ(client.Calls("patch"), 0);

  // A drifted field is applied back; someone else's object is left alone.
  kube::Object drifted = kube::Clone(desired);
  drifted["data"]["k"].SetString("changed");
  EXPECT_EQ(EnsureOwnedObject(client, type, "ns", drifted, "nlp").value(), Ensured::kUpdated);
  EXPECT_EQ(EnsureOwnedObject(client, type, "ns", drifted, "cv").status().code(),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace vtenant::op

#include "operator/ensure_object.h"

#include <gtest/gtest.h>

namespace vtenant::op {
namespace {

kube::Object WithLabels(const std::string& labels) {
  Result<kube::Object> o = kube::ParseJson(R"({"metadata":{"name":"x","labels":)" + labels + "}}");
  EXPECT_TRUE(o.ok());
  return std::move(*o);
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

}  // namespace
}  // namespace vtenant::op

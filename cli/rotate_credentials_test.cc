#include "cli/rotate_credentials.h"

#include <gtest/gtest.h>

#include "kube/testing/fake_client.h"
#include "kube/testing/json.h"

namespace vtenant::cli {
namespace {

namespace res = kube::resources;

using kube::Json;

TEST(RotateCredentialsTest, AsksTheOperatorThroughTheTenantsAnnotation) {
  kube::FakeClient host;
  ASSERT_TRUE(host.Create(res::kTenants, "",
                          Json(R"({"apiVersion":"vtenant.io/v1alpha1","kind":"Tenant",)"
                               R"("metadata":{"name":"nlp"},"spec":{}})"))
                  .ok());
  ASSERT_TRUE(RequestRotation(host, "nlp", "r1").ok());
  Result<kube::Object> t = host.Get(res::kTenants, "", "nlp");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(kube::Annotation(*t, "vtenant.io/rotate-credentials").value_or(""), "r1");

  Status missing = RequestRotation(host, "nope", "r1");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("\"nope\""), std::string::npos) << missing.ToString();
}

TEST(RotateCredentialsTest, WaitsForTheSecretToShowTheRotation) {
  kube::FakeClient host;
  Status early = WaitForRotation(host, "nlp", "r1", std::chrono::milliseconds(0));
  EXPECT_EQ(early.code(), StatusCode::kTimeout);
  EXPECT_NE(early.message().find("r1"), std::string::npos) << early.ToString();

  ASSERT_TRUE(host.Create(res::kSecrets, "vtenant-nlp",
                          Json(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"vc-nlp",)"
                               R"("annotations":{"vtenant.io/credentials-rotation":"r0"}}})"))
                  .ok());
  Status old = WaitForRotation(host, "nlp", "r1", std::chrono::milliseconds(0));
  EXPECT_EQ(old.code(), StatusCode::kTimeout);
  EXPECT_NE(old.message().find("\"r0\""), std::string::npos) << old.ToString();

  ASSERT_TRUE(host.Patch(res::kSecrets, "vtenant-nlp", "vc-nlp", kube::PatchType::kMerge,
                         R"({"metadata":{"annotations":{"vtenant.io/credentials-rotation":"r1"}}})")
                  .ok());
  EXPECT_TRUE(WaitForRotation(host, "nlp", "r1", std::chrono::milliseconds(0)).ok());
}

TEST(RotateCredentialsTest, RequestsAreNeverEqual) {
  EXPECT_NE(NewRotationRequest(), NewRotationRequest());
}

}  // namespace
}  // namespace vtenant::cli

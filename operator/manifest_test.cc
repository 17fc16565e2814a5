#include "operator/manifest.h"

#include <gtest/gtest.h>

#include "operator/ensure_object.h"

namespace vtenant::op {
namespace {

TEST(ManifestTest, PodGroupCrdIsCompiledIn) {
  Result<kube::Object> crd = PodGroupCrd();
  ASSERT_TRUE(crd.ok()) << crd.status().ToString();
  EXPECT_EQ(kube::Name(*crd), "podgroups.scheduling.run.ai");
  EXPECT_EQ(kube::GetString(*crd, {"spec", "group"}), "scheduling.run.ai");
  EXPECT_EQ(kube::GetString((*crd)["spec"]["versions"][0], {"name"}), "v2alpha2");
}

kube::Object J(const char* text) { return std::move(kube::ParseJson(text)).value(); }

TEST(EnsureObjectTest, ContainsFieldsComparesOwnedFieldsOnly) {
  kube::Object actual = J(
      R"({"metadata":{"name":"a","uid":"u","labels":{"x":"1","y":"2"}},"spec":{"n":1.0,"l":[{"k":"v","d":0}]}})");
  EXPECT_TRUE(ContainsFields(actual, J(R"({"metadata":{"labels":{"x":"1"}}})")));
  EXPECT_TRUE(ContainsFields(actual, J(R"({"spec":{"n":1,"l":[{"k":"v"}]}})")));
  EXPECT_FALSE(ContainsFields(actual, J(R"({"metadata":{"labels":{"x":"2"}}})")));
  EXPECT_FALSE(ContainsFields(actual, J(R"({"spec":{"l":[]}})")));
  EXPECT_FALSE(ContainsFields(actual, J(R"({"spec":{"m":1}})")));
}

}  // namespace
}  // namespace vtenant::op

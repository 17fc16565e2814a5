#include "kube/json_builder.h"

#include <gtest/gtest.h>

namespace vtenant::kube {
namespace {

TEST(JsonBuilderTest, BuildsNestedDocumentsWithEscapedStrings) {
  JsonObject rule{{"apiGroups", JsonArray{""}}, {"verbs", JsonArray{"get", "list"}}};
  rule.Set("resourceNames", StringArray({"a\"b"}));
  Object doc = BuildJson(JsonObject{{"kind", "Role"},
                                    {"metadata", JsonObject{{"name", std::string("r")}}},
                                    {"rules", JsonArray{std::move(rule)}},
                                    {"count", 3},
                                    {"ratio", 0.5},
                                    {"on", true},
                                    {"none", nullptr}});
  EXPECT_EQ(ToJson(doc),
            R"({"kind":"Role","metadata":{"name":"r"},"rules":[{"apiGroups":[""],)"
            R"("verbs":["get","list"],"resourceNames":["a\"b"]}],"count":3,"ratio":0.5,)"
            R"("on":true,"none":null})");
}

TEST(JsonBuilderTest, SettingAKeyAgainReplacesItInPlace) {
  JsonObject o{{"a", 1}, {"b", 2}};
  o.Set("a", "x");
  EXPECT_EQ(ToJson(BuildJson(o)), R"({"a":"x","b":2})");
}

TEST(JsonBuilderTest, EmbedsACopyOfAnExistingValue) {
  Result<Object> source = ParseJson(R"({"x":[1,{"y":"z"}]})");
  ASSERT_TRUE(source.ok());
  JsonValue copy((*source)["x"]);
  source->SetNull();  // the copy was taken at construction
  EXPECT_EQ(ToJson(BuildJson(JsonObject{{"x", copy}})), R"({"x":[1,{"y":"z"}]})");
}

TEST(JsonBuilderTest, StringMapIsInKeyOrder) {
  EXPECT_EQ(ToJson(BuildJson(StringMap({{"b", "2"}, {"a", "1"}}))), R"({"a":"1","b":"2"})");
}

}  // namespace
}  // namespace vtenant::kube

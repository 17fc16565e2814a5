#include "kube/label_selector.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::kube {
namespace {

Result<LabelSelector> ReadText(const char* text) { return LabelSelector::Read(Json(text)); }

TEST(LabelSelectorTest, MatchLabelsAndExpressionsAllHold) {
  Result<LabelSelector> s = ReadText(R"({"matchLabels":{"app":"web"},"matchExpressions":[
      {"key":"tier","operator":"In","values":["front","edge"]},
      {"key":"canary","operator":"DoesNotExist"},
      {"key":"zone","operator":"NotIn","values":["b"]},
      {"key":"team","operator":"Exists"}]})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->Matches({{"app", "web"}, {"tier", "edge"}, {"team", "nlp"}}));
  EXPECT_TRUE(s->Matches({{"app", "web"}, {"tier", "front"}, {"team", "nlp"}, {"zone", "a"}}));
  EXPECT_FALSE(s->Matches({{"app", "db"}, {"tier", "edge"}, {"team", "nlp"}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"tier", "back"}, {"team", "nlp"}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"tier", "edge"}, {"team", "nlp"}, {"canary", ""}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"tier", "edge"}, {"team", "nlp"}, {"zone", "b"}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"tier", "edge"}}));
}

TEST(LabelSelectorTest, AnEmptySelectorSelectsEverything) {
  Result<LabelSelector> s = ReadText("{}");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->empty());
  EXPECT_TRUE(s->Matches({}));
  EXPECT_TRUE(s->Matches({{"a", "b"}}));
}

TEST(LabelSelectorTest, WhatTheApiServerRefusesIsAnError) {
  EXPECT_FALSE(ReadText("[]").ok());
  EXPECT_FALSE(ReadText(R"({"matchLabels":{"a":1}})").ok());
  EXPECT_FALSE(
      ReadText(R"({"matchExpressions":[{"key":"a","operator":"Gt","values":["1"]}]})").ok());
  EXPECT_FALSE(ReadText(R"({"matchExpressions":[{"key":"a","operator":"In"}]})").ok());
  EXPECT_FALSE(
      ReadText(R"({"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]})").ok());
  Result<LabelSelector> bad = ReadText(R"({"matchExpressions":[{"key":"a","operator":"Gt"}]})");
  EXPECT_NE(bad.status().message().find("matchExpressions[0]"), std::string::npos);
}

// matchLabelKeys and mismatchLabelKeys, as the API server merges them.
TEST(LabelSelectorTest, MergedKeysRequireAndForbidAValue) {
  LabelSelector s;
  s.RequireEqual("app", "web");
  s.RequireNotEqual("team", "nlp");
  EXPECT_TRUE(s.Matches({{"app", "web"}, {"team", "vision"}}));
  EXPECT_TRUE(s.Matches({{"app", "web"}}));
  EXPECT_FALSE(s.Matches({{"app", "web"}, {"team", "nlp"}}));
}

TEST(LabelSelectorTest, KeysAreEqualForSelectorsThatSelectAlike) {
  Result<LabelSelector> a = ReadText(R"({"matchLabels":{"b":"2","a":"1"},"matchExpressions":[
      {"key":"c","operator":"In","values":["y","x","x"]}]})");
  Result<LabelSelector> b = ReadText(R"({"matchExpressions":[
      {"key":"c","operator":"In","values":["x","y"]},
      {"key":"a","operator":"In","values":["1"]}],"matchLabels":{"b":"2"}})");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->Key(), b->Key());
  EXPECT_EQ(a->Key(), "a in (1),b in (2),c in (x,y)");
  Result<LabelSelector> c = ReadText(R"({"matchExpressions":[
      {"key":"c","operator":"NotIn","values":["x","y"]},{"key":"d","operator":"DoesNotExist"},
      {"key":"e","operator":"Exists"}]})");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->Key(), "c notin (x,y),!d,e");
}

}  // namespace
}  // namespace vtenant::kube

#include "kube/label_selector.h"

#include <gtest/gtest.h>

namespace vtenant::kube {
namespace {

using Labels = std::map<std::string, std::string, std::less<>>;

bool Match(std::string_view selector, const Labels& labels) {
  Result<LabelSelector> parsed = LabelSelector::Parse(selector);
  EXPECT_TRUE(parsed.ok()) << selector << ": " << parsed.status().ToString();
  return parsed.ok() && parsed->Matches(labels);
}

TEST(LabelSelectorTest, EqualityExistenceAndSets) {
  const Labels labels = {{"app", "web"}, {"tier", "front"}};
  EXPECT_TRUE(Match("", labels));
  EXPECT_TRUE(Match("app=web", labels));
  EXPECT_TRUE(Match("app==web,tier=front", labels));
  EXPECT_FALSE(Match("app=db", labels));
  EXPECT_TRUE(Match("app!=db", labels));
  EXPECT_TRUE(Match("missing!=x", labels)) << "!= matches objects without the label";
  EXPECT_TRUE(Match("app", labels));
  EXPECT_FALSE(Match("!app", labels));
  EXPECT_TRUE(Match("!missing", labels));
  EXPECT_TRUE(Match("app in (db, web)", labels));
  EXPECT_FALSE(Match("app notin (db,web)", labels));
  EXPECT_TRUE(Match("missing notin (a)", labels));
  EXPECT_FALSE(Match("app in (db),tier=front", labels)) << "every term must hold";
  EXPECT_TRUE(Match(" app = web , tier in (front) ", labels));
}

TEST(LabelSelectorTest, MatchesAnObjectsLabels) {
  Result<Object> pod =
      ParseJson(R"({"metadata":{"name":"p","labels":{"vtenant.io/tenant":"nlp"}}})");
  ASSERT_TRUE(pod.ok());
  EXPECT_TRUE(LabelSelector::Parse("vtenant.io/tenant=nlp")->Matches(*pod));
  EXPECT_FALSE(LabelSelector::Parse("vtenant.io/tenant=cv")->Matches(*pod));
  Result<Object> bare = ParseJson(R"({"metadata":{"name":"q"}})");
  EXPECT_TRUE(LabelSelector::Parse("!vtenant.io/tenant")->Matches(*bare));
}

TEST(LabelSelectorTest, RejectsMalformedTermsNamingThem) {
  for (const char* text : {"a=b,,c", "=b", "a in b", "a in (b", "a in ()", "a foo (b)", "!"}) {
    Result<LabelSelector> parsed = LabelSelector::Parse(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(text), std::string::npos);
  }
}

}  // namespace
}  // namespace vtenant::kube

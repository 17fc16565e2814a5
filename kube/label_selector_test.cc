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
  const struct {
    std::string_view selector;
    bool matches;
    std::string_view why = "";
  } cases[] = {
      {"", true},
      {"app=web", true},
      {"app==web,tier=front", true},
      {"app=db", false},
      {"app!=db", true},
      {"missing!=x", true, "!= matches objects without the label"},
      {"app", true},
      {"!app", false},
      {"!missing", true},
      {"app in (db, web)", true},
      {"app notin (db,web)", false},
      {"missing notin (a)", true},
      {"app in (db),tier=front", false, "every term must hold"},
      {" app = web , tier in (front) ", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.selector);
    EXPECT_EQ(Match(c.selector, labels), c.matches) << c.why;
  }
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

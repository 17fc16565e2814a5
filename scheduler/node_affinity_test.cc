// Required node affinity as kube-scheduler reads it: terms ORed, their
// requirements ANDed, every operator, matchFields on metadata.name.
#include "scheduler/node_affinity.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "scheduler/testing/fake_cluster.h"

namespace vtenant::scheduler {
namespace {

using testing::Json;

// Pod "p" whose required node affinity has the node selector terms
// `terms`, a JSON array.
kube::Object PodWithTerms(const std::string& terms) {
  return kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", "p"}}},
      {"spec", kube::JsonObject{
                   {"affinity", kube::JsonObject{
                                    {"nodeAffinity",
                                     kube::JsonObject{
                                         {"requiredDuringSchedulingIgnoredDuringExecution",
                                          kube::JsonObject{{"nodeSelectorTerms",
                                                            kube::JsonValue(Json(terms))}}}}}}}}}});
}

TEST(NodeAffinityTest, TermsOredRequirementsAnded) {
  const sched::LabelPairs h100 = {{"gpu", "H100"}, {"zone", "a"}, {"gpus", "8"}};
  const sched::LabelPairs l40s = {{"gpu", "L40S"}, {"zone", "b"}, {"gpus", "4"}};
  const sched::LabelPairs bare = {};
  struct Case {
    std::string what, terms;
    bool on_h100, on_l40s, on_bare;
  };
  for (const Case& c : std::vector<Case>{
           {"In",
            R"([{"matchExpressions":[{"key":"gpu","operator":"In","values":["H100","A100"]}]}])",
            true, false, false},
           {"NotIn holds where the label is absent",
            R"([{"matchExpressions":[{"key":"gpu","operator":"NotIn","values":["H100"]}]}])", false,
            true, true},
           {"Exists", R"([{"matchExpressions":[{"key":"zone","operator":"Exists"}]}])", true, true,
            false},
           {"DoesNotExist", R"([{"matchExpressions":[{"key":"zone","operator":"DoesNotExist"}]}])",
            false, false, true},
           {"Gt compares integers",
            R"([{"matchExpressions":[{"key":"gpus","operator":"Gt","values":["4"]}]}])", true,
            false, false},
           {"Lt", R"([{"matchExpressions":[{"key":"gpus","operator":"Lt","values":["8"]}]}])",
            false, true, false},
           {"expressions of a term are ANDed",
            R"([{"matchExpressions":[{"key":"zone","operator":"Exists"},
                {"key":"gpu","operator":"NotIn","values":["H100"]}]}])",
            false, true, false},
           {"terms are ORed",
            R"([{"matchExpressions":[{"key":"gpu","operator":"In","values":["H100"]}]},
                {"matchExpressions":[{"key":"zone","operator":"DoesNotExist"}]}])",
            true, false, true},
           {"matchFields on the node's name",
            R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["l40s"]}]}])",
            false, true, false},
           {"matchFields and matchExpressions are ANDed",
            R"([{"matchFields":[{"key":"metadata.name","operator":"NotIn","values":["l40s"]}],
                "matchExpressions":[{"key":"zone","operator":"Exists"}]}])",
            true, false, false},
           {"an empty term matches nothing", R"([{}])", false, false, false},
       }) {
    SCOPED_TRACE(c.what);
    Result<NodeAffinity> a = ParseRequiredNodeAffinity(PodWithTerms(c.terms));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(a->Matches("h100", h100), c.on_h100);
    EXPECT_EQ(a->Matches("l40s", l40s), c.on_l40s);
    EXPECT_EQ(a->Matches("bare", bare), c.on_bare);
  }
}

TEST(NodeAffinityTest, OnlyOneTermOfInExpressionsIsSimple) {
  auto simple = [](const std::string& terms) {
    return ParseRequiredNodeAffinity(PodWithTerms(terms)).value().Simple();
  };
  EXPECT_TRUE(simple(R"([{"matchExpressions":[{"key":"a","operator":"In","values":["1"]},
      {"key":"b","operator":"In","values":["2"]}]}])"));
  EXPECT_FALSE(simple(R"([{"matchExpressions":[{"key":"a","operator":"NotIn","values":["1"]}]}])"));
  EXPECT_FALSE(simple(R"([{"matchExpressions":[{"key":"a","operator":"In","values":["1"]}]},
      {"matchExpressions":[{"key":"b","operator":"In","values":["2"]}]}])"));
  EXPECT_FALSE(
      simple(R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["n"]}]}])"));
  EXPECT_TRUE(ParseRequiredNodeAffinity(Json(R"({"spec":{}})")).value().empty());
}

TEST(NodeAffinityTest, WhatTheApiServerRefusesIsAnErrorNamingIt) {
  for (const auto& [terms, says] : std::vector<std::pair<std::string, std::string>>{
           {R"([{"matchExpressions":[{"key":"a","operator":"Near","values":["1"]}]}])", "Near"},
           {R"([{"matchExpressions":[{"key":"a","operator":"Gt","values":["1","2"]}]}])",
            "one integer"},
           {R"([{"matchExpressions":[{"key":"a","operator":"Lt","values":["x"]}]}])",
            "one integer"},
           {R"([{"matchExpressions":[{"key":"a","operator":"In"}]}])", "needs values"},
           {R"([{"matchExpressions":[{"key":"a","operator":"Exists","values":["1"]}]}])",
            "takes no values"},
           {R"([{"matchFields":[{"key":"metadata.uid","operator":"In","values":["1"]}]}])",
            "metadata.name"},
       }) {
    Result<NodeAffinity> a = ParseRequiredNodeAffinity(PodWithTerms(terms));
    ASSERT_FALSE(a.ok()) << terms;
    EXPECT_NE(a.status().message().find(says), std::string::npos) << a.status().ToString();
    EXPECT_NE(a.status().message().find("nodeSelectorTerms[0]"), std::string::npos);
  }
}

}  // namespace
}  // namespace vtenant::scheduler

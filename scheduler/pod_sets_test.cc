#include "scheduler/pod_sets.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::scheduler {
namespace {

// The terms of a pod of namespace ml kept off nodes with pods labelled `app`.
InterPodTerms AwayFrom(const std::string& app) {
  return ReadInterPodTerms(kube::Json(R"({"metadata":{"name":"p","namespace":"ml"},
      "spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
      {"labelSelector":{"matchLabels":{"app":")" +
                                      app + R"("}},"topologyKey":"kubernetes.io/hostname"}]}}}})"));
}

TEST(PodSetsTest, APodIsMarkedWithTheSetsThatHoldIt) {
  PodSets sets;
  EXPECT_TRUE(sets.MarksOf("ml", {{"app", "db"}}, {}).empty());
  const InterPodTerms away_from_db = AwayFrom("db");
  sets.Use(away_from_db);
  sets.Use(AwayFrom("web"));
  const std::vector<std::string> db = sets.MarksOf("ml", {{"app", "db"}}, {});
  ASSERT_EQ(db.size(), 1u);
  EXPECT_EQ(db[0], away_from_db.anti_affinity[0].first.key);
  EXPECT_EQ(sets.MarksOf("ml", {{"app", "web"}}, {}).size(), 1u);
  EXPECT_TRUE(sets.MarksOf("other", {{"app", "db"}}, {}).empty());
  EXPECT_TRUE(sets.MarksOf("ml", {{"app", "cache"}}, {}).empty());
}

TEST(PodSetsTest, TheVersionMovesOnlyWhenASetComesOrGoes) {
  PodSets sets;
  const uint64_t start = sets.version();
  sets.Use(AwayFrom("db"));
  const uint64_t one = sets.version();
  EXPECT_NE(one, start);
  sets.Use(AwayFrom("db"));  // a second user of the same set
  EXPECT_EQ(sets.version(), one);
  sets.Release(AwayFrom("db"));
  EXPECT_EQ(sets.version(), one);
  EXPECT_FALSE(sets.MarksOf("ml", {{"app", "db"}}, {}).empty());
  sets.Release(AwayFrom("db"));
  EXPECT_NE(sets.version(), one);
  EXPECT_TRUE(sets.empty());
  EXPECT_TRUE(sets.MarksOf("ml", {{"app", "db"}}, {}).empty());
}

TEST(PodSetsTest, ItSaysWhenMarksFollowNamespaceLabels) {
  PodSets sets;
  sets.Use(AwayFrom("db"));
  EXPECT_FALSE(sets.ReadNamespaceLabels());
  const InterPodTerms by_team = ReadInterPodTerms(kube::Json(R"({"metadata":{"name":"p",
      "namespace":"ml"},"spec":{"affinity":{"podAntiAffinity":{
      "requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{},
      "namespaceSelector":{"matchLabels":{"team":"nlp"}},"topologyKey":"kubernetes.io/hostname"}]}}}})"));
  sets.Use(by_team);
  sets.Use(by_team);
  EXPECT_TRUE(sets.ReadNamespaceLabels());
  EXPECT_EQ(sets.MarksOf("a", {}, {{"team", "nlp"}}).size(), 1u);
  EXPECT_TRUE(sets.MarksOf("a", {}, {{"team", "cv"}}).empty());
  sets.Release(by_team);
  EXPECT_TRUE(sets.ReadNamespaceLabels());
  sets.Release(by_team);
  EXPECT_FALSE(sets.ReadNamespaceLabels());
}

}  // namespace
}  // namespace vtenant::scheduler

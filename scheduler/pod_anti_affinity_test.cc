#include "scheduler/pod_anti_affinity.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::scheduler {
namespace {

using kube::Json;

// A pod of namespace ml labelled app=web, pod-template-hash=abc, with
// `terms` as its required anti-affinity.
kube::Object Replica(const std::string& name, const std::string& terms) {
  return Json(R"({"metadata":{"name":")" + name + R"(","namespace":"ml",
      "labels":{"app":"web","pod-template-hash":"abc"}},
      "spec":{"affinity":{"podAntiAffinity":{
        "requiredDuringSchedulingIgnoredDuringExecution":)" +
              terms + "}}}}");
}

TEST(ReplicaExclusionsTest, ATermThatSelectsThePodItselfHoldsItsReplicasApart) {
  const std::string terms = R"([
      {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"},
      {"labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["web"]}]},
       "topologyKey":"topology.kubernetes.io/zone"}])";
  auto first = ReplicaExclusions(Replica("web-1", terms));
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].second, "kubernetes.io/hostname");
  EXPECT_EQ(first[1].second, "topology.kubernetes.io/zone");
  EXPECT_NE(first[0].first, first[1].first);
  EXPECT_EQ(ReplicaExclusions(Replica("web-2", terms)), first) << "its replicas share the keys";
}

TEST(ReplicaExclusionsTest, TermsOfOtherPodsAndOtherNamespacesAreNotItsReplicas) {
  // Kept away from a database: not its replicas.
  EXPECT_TRUE(ReplicaExclusions(Replica("web-1", R"([{"labelSelector":{"matchLabels":
      {"app":"db"}},"topologyKey":"kubernetes.io/hostname"}])"))
                  .empty());
  // Namespaces that leave its own out, and a namespace selector on labels.
  EXPECT_TRUE(ReplicaExclusions(Replica("web-1", R"([{"labelSelector":{},"namespaces":["db"],
      "topologyKey":"kubernetes.io/hostname"}])"))
                  .empty());
  EXPECT_TRUE(ReplicaExclusions(Replica("web-1", R"([{"labelSelector":{},
      "namespaceSelector":{"matchLabels":{"team":"nlp"}},"topologyKey":"kubernetes.io/hostname"}])"))
                  .empty());
  // No selector selects nothing; a mismatch on its own label excludes itself.
  EXPECT_TRUE(
      ReplicaExclusions(Replica("web-1", R"([{"topologyKey":"kubernetes.io/hostname"}])")).empty());
  EXPECT_TRUE(ReplicaExclusions(Replica("web-1", R"([{"labelSelector":{},
      "mismatchLabelKeys":["pod-template-hash"],"topologyKey":"kubernetes.io/hostname"}])"))
                  .empty());
}

TEST(ReplicaExclusionsTest, AllNamespacesAndMatchLabelKeysMakeKeysOfTheirOwn) {
  const auto everywhere = ReplicaExclusions(Replica("web-1", R"([{"labelSelector":{},
      "namespaceSelector":{},"topologyKey":"kubernetes.io/hostname"}])"));
  const auto here = ReplicaExclusions(
      Replica("web-1", R"([{"labelSelector":{},"topologyKey":"kubernetes.io/hostname"}])"));
  const auto this_revision = ReplicaExclusions(Replica("web-1", R"([{"labelSelector":{},
      "matchLabelKeys":["pod-template-hash"],"topologyKey":"kubernetes.io/hostname"}])"));
  ASSERT_EQ(everywhere.size(), 1u);
  ASSERT_EQ(here.size(), 1u);
  ASSERT_EQ(this_revision.size(), 1u);
  EXPECT_NE(everywhere[0].first, here[0].first);
  EXPECT_NE(here[0].first, this_revision[0].first);
}

}  // namespace
}  // namespace vtenant::scheduler

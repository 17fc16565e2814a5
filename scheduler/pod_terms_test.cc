#include "scheduler/pod_terms.h"

#include <gtest/gtest.h>

#include <set>

#include "kube/testing/json.h"

namespace vtenant::scheduler {
namespace {

using kube::Json;

// A pod of namespace ml labelled app=web, pod-template-hash=abc, with
// `affinity` as its spec.affinity.
kube::Object PodWith(const std::string& affinity) {
  return Json(R"({"metadata":{"name":"web-1","namespace":"ml",
      "labels":{"app":"web","pod-template-hash":"abc"}},"spec":{"affinity":)" +
              affinity + "}}");
}

kube::Object Anti(const std::string& terms) {
  return PodWith(R"({"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)" +
                 terms + "}}");
}

const kube::Labels kWeb = {{"app", "web"}, {"pod-template-hash", "abc"}};

TEST(InterPodTermsTest, EachAntiAffinityTermIsASetOfItsOwn) {
  InterPodTerms t = ReadInterPodTerms(Anti(R"([
      {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"},
      {"labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["db"]}]},
       "topologyKey":"topology.kubernetes.io/zone"}])"));
  ASSERT_EQ(t.anti_affinity.size(), 2u);
  EXPECT_EQ(t.anti_affinity[0].second, "kubernetes.io/hostname");
  EXPECT_EQ(t.anti_affinity[1].second, "topology.kubernetes.io/zone");
  EXPECT_NE(t.anti_affinity[0].first.key, t.anti_affinity[1].first.key);
  // The first holds its replicas, the second a database, both in ml only.
  EXPECT_TRUE(t.anti_affinity[0].first.Holds("ml", kWeb));
  EXPECT_FALSE(t.anti_affinity[0].first.Holds("other", kWeb));
  EXPECT_FALSE(t.anti_affinity[1].first.Holds("ml", kWeb));
  EXPECT_TRUE(t.anti_affinity[1].first.Holds("ml", {{"app", "db"}}));
  EXPECT_TRUE(t.affinity_levels.empty());
}

TEST(InterPodTermsTest, AffinityTermsAreOneSetThatEveryTermSelects) {
  InterPodTerms t = ReadInterPodTerms(
      PodWith(R"({"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
      {"labelSelector":{"matchLabels":{"app":"cache"}},"topologyKey":"kubernetes.io/hostname"},
      {"labelSelector":{"matchLabels":{"tier":"hot"}},"namespaces":["ml","data"],
       "topologyKey":"topology.kubernetes.io/zone"}]}})"));
  ASSERT_EQ(t.affinity_levels.size(), 2u);
  EXPECT_EQ(t.affinity.all.size(), 2u);
  EXPECT_TRUE(t.affinity.Holds("ml", {{"app", "cache"}, {"tier", "hot"}}));
  EXPECT_FALSE(t.affinity.Holds("ml", {{"app", "cache"}}));
  EXPECT_FALSE(t.affinity.Holds("data", {{"app", "cache"}, {"tier", "hot"}}))
      << "the first term reaches the pod's own namespace only";
  // The same terms in another order name the same set.
  InterPodTerms swapped = ReadInterPodTerms(
      PodWith(R"({"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
      {"labelSelector":{"matchLabels":{"tier":"hot"}},"namespaces":["data","ml"],
       "topologyKey":"topology.kubernetes.io/zone"},
      {"labelSelector":{"matchLabels":{"app":"cache"}},"topologyKey":"kubernetes.io/hostname"}]}})"));
  EXPECT_EQ(swapped.affinity.key, t.affinity.key);
}

TEST(InterPodTermsTest, NamespacesAndMergedLabelKeysShapeTheSet) {
  auto set_of = [](const std::string& term) {
    InterPodTerms t = ReadInterPodTerms(Anti("[" + term + "]"));
    EXPECT_EQ(t.anti_affinity.size(), 1u) << term;
    return t.anti_affinity.empty() ? PodSet{} : t.anti_affinity[0].first;
  };
  const PodSet everywhere = set_of(
      R"({"labelSelector":{},"namespaceSelector":{},"topologyKey":"kubernetes.io/hostname"})");
  const PodSet here = set_of(R"({"labelSelector":{},"topologyKey":"kubernetes.io/hostname"})");
  const PodSet this_revision = set_of(R"({"labelSelector":{},
      "matchLabelKeys":["pod-template-hash"],"topologyKey":"kubernetes.io/hostname"})");
  const PodSet other_teams = set_of(R"({"labelSelector":{},
      "mismatchLabelKeys":["app"],"topologyKey":"kubernetes.io/hostname"})");
  const PodSet none = set_of(R"({"topologyKey":"kubernetes.io/hostname"})");
  EXPECT_TRUE(everywhere.Holds("db", {}));
  EXPECT_FALSE(here.Holds("db", {}));
  EXPECT_TRUE(here.Holds("ml", {}));
  EXPECT_TRUE(this_revision.Holds("ml", kWeb));
  EXPECT_FALSE(this_revision.Holds("ml", {{"app", "web"}, {"pod-template-hash", "new"}}));
  EXPECT_FALSE(other_teams.Holds("ml", kWeb));
  EXPECT_TRUE(other_teams.Holds("ml", {{"app", "db"}}));
  EXPECT_FALSE(none.Holds("ml", kWeb));
  std::set<std::string> keys = {everywhere.key, here.key, this_revision.key, other_teams.key,
                                none.key};
  EXPECT_EQ(keys.size(), 5u);
}

// As kube-scheduler reads a term: the namespaces it lists and those its
// namespaceSelector matches by their labels; the pod's own only when it
// has neither.
TEST(InterPodTermsTest, ANamespaceSelectorReachesTheNamespacesItsLabelsMatch) {
  InterPodTerms t = ReadInterPodTerms(Anti(R"([
      {"labelSelector":{"matchLabels":{"app":"web"}},
       "namespaceSelector":{"matchLabels":{"team":"nlp"}},
       "topologyKey":"kubernetes.io/hostname"},
      {"labelSelector":{"matchLabels":{"app":"web"}},"namespaces":["data"],
       "namespaceSelector":{"matchExpressions":[{"key":"team","operator":"Exists"}]},
       "topologyKey":"kubernetes.io/hostname"}])"));
  ASSERT_EQ(t.anti_affinity.size(), 2u);
  const PodSet& nlp = t.anti_affinity[0].first;
  const PodSet& data_or_teams = t.anti_affinity[1].first;
  const kube::Labels team_nlp = {{"team", "nlp"}};
  EXPECT_TRUE(nlp.ReadsNamespaceLabels());
  EXPECT_TRUE(nlp.Holds("a", kWeb, team_nlp));
  EXPECT_FALSE(nlp.Holds("a", kWeb, {{"team", "vision"}}));
  EXPECT_FALSE(nlp.Holds("ml", kWeb, {})) << "the pod's own namespace is not implied";
  EXPECT_FALSE(nlp.Holds("a", {{"app", "db"}}, team_nlp));
  EXPECT_TRUE(data_or_teams.Holds("data", kWeb, {}));
  EXPECT_TRUE(data_or_teams.Holds("b", kWeb, {{"team", "vision"}}));
  EXPECT_FALSE(data_or_teams.Holds("b", kWeb, {}));
  EXPECT_NE(nlp.key, data_or_teams.key);
  EXPECT_FALSE(ReadInterPodTerms(Anti(R"([{"labelSelector":{},"namespaceSelector":{},
      "topologyKey":"kubernetes.io/hostname"}])"))
                   .anti_affinity[0]
                   .first.ReadsNamespaceLabels());
}

TEST(InterPodTermsTest, TermsItCannotReadAreLeftOut) {
  // A namespace selector the API server would refuse, no topologyKey, and a
  // selector the API server would refuse.
  InterPodTerms t = ReadInterPodTerms(Anti(R"([
      {"labelSelector":{},"namespaceSelector":{"matchExpressions":[{"key":"t","operator":"Gt"}]},
       "topologyKey":"kubernetes.io/hostname"},
      {"labelSelector":{}},
      {"labelSelector":{"matchExpressions":[{"key":"a","operator":"Gt","values":["1"]}]},
       "topologyKey":"kubernetes.io/hostname"}])"));
  EXPECT_TRUE(t.empty());
  EXPECT_TRUE(ReadInterPodTerms(Json(R"({"metadata":{"name":"p"}})")).empty());
}

TEST(InterPodTermsTest, PreferredTermsCarryTheirWeightAntiAffinityNegative) {
  InterPodTerms t = ReadInterPodTerms(PodWith(R"({
      "podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
        {"weight":10,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"cache"}},
         "topologyKey":"kubernetes.io/hostname"}},
        {"weight":0,"podAffinityTerm":{"labelSelector":{},"topologyKey":"kubernetes.io/hostname"}}]},
      "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
        {"weight":30,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web"}},
         "topologyKey":"topology.kubernetes.io/zone"}}]}})"));
  ASSERT_EQ(t.preferred.size(), 2u) << "a weight outside 1 to 100 is not read";
  EXPECT_EQ(t.preferred[0].weight, 10);
  EXPECT_EQ(t.preferred[0].level, "kubernetes.io/hostname");
  EXPECT_TRUE(t.preferred[0].set.Holds("ml", {{"app", "cache"}}));
  EXPECT_EQ(t.preferred[1].weight, -30);
  EXPECT_TRUE(t.preferred[1].set.Holds("ml", kWeb));
  EXPECT_TRUE(t.affinity_levels.empty());
  EXPECT_TRUE(t.anti_affinity.empty());
}

TEST(InterPodTermsTest, RequiredTopologySpreadIsASetOfThePodsOwnNamespace) {
  kube::Object pod = Json(R"({"metadata":{"name":"web-1","namespace":"ml",
      "labels":{"app":"web","pod-template-hash":"abc"}},"spec":{"topologySpreadConstraints":[
      {"maxSkew":2,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule",
       "labelSelector":{"matchLabels":{"app":"web"}},"matchLabelKeys":["pod-template-hash"],
       "minDomains":3,"nodeAffinityPolicy":"Ignore","nodeTaintsPolicy":"Honor"},
      {"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"ScheduleAnyway",
       "labelSelector":{"matchLabels":{"app":"web"}}},
      {"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"DoNotSchedule"}]}})");
  InterPodTerms t = ReadInterPodTerms(pod);
  ASSERT_EQ(t.spread.size(), 2u) << "ScheduleAnyway only scores nodes";
  const InterPodTerms::Spread& zone = t.spread[0];
  EXPECT_EQ(zone.level, "topology.kubernetes.io/zone");
  EXPECT_EQ(zone.max_skew, 2);
  EXPECT_EQ(zone.min_domains, 3);
  EXPECT_FALSE(zone.honor_affinity);
  EXPECT_TRUE(zone.honor_taints);
  EXPECT_TRUE(zone.set.Holds("ml", kWeb));
  EXPECT_FALSE(zone.set.Holds("ml", {{"app", "web"}, {"pod-template-hash", "old"}}));
  EXPECT_FALSE(zone.set.Holds("other", kWeb));
  // No labelSelector: a set of no pods; the defaults of the policies.
  EXPECT_FALSE(t.spread[1].set.Holds("ml", kWeb));
  EXPECT_TRUE(t.spread[1].honor_affinity);
  EXPECT_FALSE(t.spread[1].honor_taints);
}

}  // namespace
}  // namespace vtenant::scheduler

// ReadGroveGang: the PodGroup KAI's grove grouper makes of a PodGang. The
// cases restate KAI's own grouper tests (the same PodGangs and expected
// sub-groups), and where this reader parts from KAI, say so.
#include "kai/grove_gang.h"

#include <gtest/gtest.h>

#include "kai/podgroup_spec.h"
#include "kube/object.h"
#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

// A PodGang test-ns/pgs1 with `annotations` and `spec` (JSON objects).
kube::Object PodGang(const std::string& spec, const std::string& annotations = "{}") {
  return Json(R"({"apiVersion":"scheduler.grove.io/v1alpha1","kind":"PodGang",
      "metadata":{"name":"pgs1","namespace":"test-ns","uid":"1","annotations":)" +
              annotations + R"(},"spec":)" + spec + "}");
}

// A podgroup entry `name` of `min` replicas holding pods `pods`, with
// `more` members.
std::string PodGroupEntry(const std::string& name, int min, std::vector<std::string> pods,
                          const std::string& more = "") {
  std::string refs;
  for (const std::string& p : pods)
    refs +=
        std::string(refs.empty() ? "" : ",") + R"({"namespace":"test-ns","name":")" + p + R"("})";
  return R"({"name":")" + name + R"(","minReplicas":)" + std::to_string(min) +
         R"(,"podReferences":[)" + refs + "]" + more + "}";
}

std::string Pack(const std::string& required, const std::string& preferred) {
  return R"(,"topologyConstraint":{"packConstraint":{"required":")" + required +
         R"(","preferred":")" + preferred + R"("}})";
}

GangSubGroup Leaf(const char* name, int32_t min, const char* parent = "",
                  TopologyConstraint topology = {}) {
  return {name, parent, min, std::nullopt, std::move(topology)};
}

// KAI: TestGetPodGroupMetadata.
TEST(ReadGroveGangTest, EachPodgroupIsALeafAndTheGangWantsThemAll) {
  const kube::Object gang_object = PodGang(
      "{\"podgroups\":[" + PodGroupEntry("pgs1-pga", 4, {"pgs1-pga1", "pgs1-pga2"}) + "," +
      PodGroupEntry("pgs1-pgb", 3, {"pgs1-pgb1"}) + "," +
      PodGroupEntry("pgs1-pgc", 5, {"pgs1-pgc1"}) + R"(],"priorityClassName":"inference"})");
  Result<SubGroupGang> gang = ReadGroveGang(gang_object, "pgs1-pgb1");
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->min_member, 12);
  EXPECT_EQ(gang->min_sub_group, std::nullopt);
  EXPECT_EQ(gang->sub_groups, (std::vector<GangSubGroup>{Leaf("pgs1-pga", 4), Leaf("pgs1-pgb", 3),
                                                         Leaf("pgs1-pgc", 5)}));
  EXPECT_EQ(gang->pod_sub_group, "pgs1-pgb");
  EXPECT_EQ(ReadGroveGang(gang_object, "not-yet-listed")->pod_sub_group, "");
}

// KAI: TestGetPodGroupMetadata_WithTopologyHierarchy.
TEST(ReadGroveGangTest, ConfigsAreParentsOfThePodgroupsTheyName) {
  const kube::Object gang_object =
      PodGang(R"({"topologyConstraint":{"packConstraint":{"preferred":"rack","required":"zone"}},
          "topologyConstraintGroupConfigs":[{"name":"group1","podGroupNames":["pg1","pg2"])" +
                  Pack("rack", "node") + R"(}],"podgroups":[)" +
                  PodGroupEntry("pg1", 2, {"pod1"}, Pack("", "node")) + "," +
                  PodGroupEntry("pg2", 3, {"pod2"}, Pack("node", "")) + "]}",
              R"({"grove.io/topology-name":"test-topology"})");
  Result<SubGroupGang> gang = ReadGroveGang(gang_object, "pod1");
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->min_member, 5) << "the leaves' minReplicas only";
  ASSERT_EQ(gang->sub_groups.size(), 3u);
  EXPECT_EQ(gang->sub_groups[0],
            (GangSubGroup{"group1", "", std::nullopt, 2, {"test-topology", "rack", "node"}}));
  EXPECT_EQ(gang->sub_groups[1], Leaf("pg1", 2, "group1", {"test-topology", "", "node"}));
  EXPECT_EQ(gang->sub_groups[2], Leaf("pg2", 3, "group1", {"test-topology", "node", ""}));
  EXPECT_EQ(gang->pod_sub_group, "pg1");
  Result<TopologyConstraint> own = ReadGroveTopology(gang_object);
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(*own, (TopologyConstraint{"test-topology", "zone", "rack"}));

  // The PodGroup the grouper writes passes KAI's PodGroup rules.
  kube::Object pg = Json(R"({"metadata":{"name":"pg","namespace":"test-ns"},
      "spec":{"queue":"q","minMember":5}})");
  pg["spec"].AddMember("subGroups", SubGroupsValue(*gang, pg.GetAllocator()), pg.GetAllocator());
  EXPECT_TRUE(ReadPodGroupSpec(pg).ok()) << kube::ToJson(pg);
}

// KAI: TestGetPodGroupMetadata_EmptyPodGroupNames and
// _ConfigReferencesNonexistentPodGroup. KAI's group1 in the second would
// want 2 children of which one exists; here it wants the one.
TEST(ReadGroveGangTest, AConfigCountsOnlyThePodgroupsThatExist) {
  Result<SubGroupGang> empty_names = ReadGroveGang(
      PodGang(R"({"topologyConstraintGroupConfigs":[{"name":"group1","podGroupNames":[]},
          {"name":"group2","podGroupNames":["pg1"]}],"podgroups":[)" +
                  PodGroupEntry("pg1", 1, {"pod1"}) + "]}",
              R"({"grove.io/topology-name":"test-topology"})"),
      "pod1");
  ASSERT_TRUE(empty_names.ok()) << empty_names.status().ToString();
  EXPECT_EQ(empty_names->sub_groups, (std::vector<GangSubGroup>{{"group2", "", std::nullopt, 1, {}},
                                                                Leaf("pg1", 1, "group2")}));

  Result<SubGroupGang> missing = ReadGroveGang(
      PodGang(
          R"({"topologyConstraintGroupConfigs":[{"name":"group1","podGroupNames":["pg1","pg2"]}],
          "podgroups":[)" +
          PodGroupEntry("pg1", 1, {"pod1"}) + "]}"),
      "pod1");
  ASSERT_TRUE(missing.ok()) << missing.status().ToString();
  EXPECT_EQ(missing->sub_groups, (std::vector<GangSubGroup>{{"group1", "", std::nullopt, 1, {}},
                                                            Leaf("pg1", 1, "group1")}));
}

// KAI: TestGetPodGroupMetadata_SpecOverridesAnnotation (the Topology's
// name) and _EmptyTopology (levels with no Topology are refused).
TEST(ReadGroveGangTest, LevelsAreOfTheTopologyThePodGangNames) {
  const std::string spec = R"({"topologyConstraint":{"packConstraint":{"preferred":"rack",
      "required":"zone"}},"podgroups":[)" +
                           PodGroupEntry("pg1", 1, {"pod1"}) + "]}";
  Result<TopologyConstraint> named = ReadGroveTopology(PodGang(
      spec, R"({"grove.io/topology-name":"spec-topology","kai.scheduler/topology":"anno"})"));
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->topology, "spec-topology");
  EXPECT_EQ(ReadGroveTopology(PodGang(spec, R"({"kai.scheduler/topology":"anno"})"))->topology,
            "anno");
  EXPECT_FALSE(ReadGroveTopology(PodGang(spec)).ok());
  EXPECT_FALSE(ReadGroveGang(PodGang("{\"podgroups\":[" +
                                     PodGroupEntry("pg1", 1, {"pod1"}, Pack("node", "")) + "]}"),
                             "pod1")
                   .ok());
  EXPECT_EQ(*ReadGroveTopology(PodGang(R"({"podgroups":[]})")), TopologyConstraint{});

  // KAI: _SpecOverridesAnnotation: the pack constraint's levels win; the
  // annotations of the PodGang, then of its top owner, fill what it leaves.
  const kube::Object top = Json(R"({"metadata":{"annotations":{"kai.scheduler/topology":"t",
      "kai.scheduler/topology-required-placement":"cluster",
      "kai.scheduler/topology-preferred-placement":"host"}}})");
  Result<TopologyConstraint> filled = ReadGroveTopology(
      PodGang(R"({"topologyConstraint":{"packConstraint":{"required":"zone"}},"podgroups":[]})",
              R"({"grove.io/topology-name":"spec-topology",
                  "kai.scheduler/topology-preferred-placement":"rack"})"),
      &top);
  ASSERT_TRUE(filled.ok()) << filled.status().ToString();
  EXPECT_EQ(*filled, (TopologyConstraint{"spec-topology", "zone", "rack"}));
  EXPECT_EQ(*ReadGroveTopology(PodGang(R"({"podgroups":[]})"), &top),
            (TopologyConstraint{"t", "cluster", "host"}));
}

// KAI's grove grouper: label priorityClassName of the PodGang, then of its
// top owner, then the PodGang's spec.priorityClassName.
TEST(ReadGroveGangTest, ThePriorityClassIsALabelsThenTheSpecs) {
  const kube::Object spec_only = PodGang(R"({"priorityClassName":"inference","podgroups":[]})");
  const kube::Object top = Json(R"({"metadata":{"labels":{"priorityClassName":"build"}}})");
  EXPECT_EQ(GrovePriorityClass(spec_only), "inference");
  EXPECT_EQ(GrovePriorityClass(spec_only, &top), "build");
  kube::Object labelled = PodGang(R"({"priorityClassName":"inference","podgroups":[]})");
  kube::SetString(labelled, {"metadata", "labels"}, "priorityClassName", "train");
  EXPECT_EQ(GrovePriorityClass(labelled, &top), "train");
  EXPECT_EQ(GrovePriorityClass(PodGang(R"({"podgroups":[]})")), std::nullopt);
}

// KAI: TestParseGroveSubGroup_MissingFields, _NegativeMinAvailable,
// _InvalidPodReference, _CrossNamespaceReferenceRejected.
TEST(ReadGroveGangTest, WhatKaisGrouperRefusesIsRefused) {
  for (const std::string& podgroup :
       {std::string(R"({"minReplicas":1,"podReferences":[]})"),
        std::string(R"({"name":"a","podReferences":[]})"),
        std::string(R"({"name":"a","minReplicas":0,"podReferences":[]})"),
        std::string(R"({"name":"a","minReplicas":-1,"podReferences":[]})"),
        std::string(R"({"name":"a","minReplicas":1})"),
        std::string(R"({"name":"a","minReplicas":1,"podReferences":[{"name":"p"}]})"),
        std::string(R"({"name":"a","minReplicas":1,"podReferences":[{"namespace":"other",
            "name":"p"}]})")}) {
    Result<SubGroupGang> gang = ReadGroveGang(PodGang("{\"podgroups\":[" + podgroup + "]}"), "p");
    EXPECT_FALSE(gang.ok()) << podgroup;
    if (!gang.ok()) {
      EXPECT_NE(gang.status().message().find("PodGang test-ns/pgs1: spec.podgroups[0]"),
                std::string::npos)
          << gang.status().message();
    }
  }
  EXPECT_FALSE(ReadGroveGang(PodGang(R"({"podgroups":{}})"), "p").ok());
  // Names a pod cannot be labelled with, or that two entries share: the
  // group would fail later, out of the team's sight.
  const std::string too_long(64, 'a');
  for (const std::string& spec :
       {"{\"podgroups\":[" + PodGroupEntry(too_long, 1, {"p"}) + "]}",
        "{\"podgroups\":[" + PodGroupEntry("has space", 1, {"p"}) + "]}",
        "{\"podgroups\":[" + PodGroupEntry("a", 1, {"p"}) + "," + PodGroupEntry("a", 1, {"q"}) +
            "]}",
        R"({"topologyConstraintGroupConfigs":[{"name":"a","podGroupNames":["a"]}],"podgroups":[)" +
            PodGroupEntry("a", 1, {"p"}) + "]}"}) {
    EXPECT_FALSE(ReadGroveGang(PodGang(spec), "p").ok()) << spec;
  }
}

TEST(ReadGroveGangTest, GroveWorkloadsAreTheirPodCliqueSetsAndPodGangSets) {
  EXPECT_TRUE(IsGroveWorkload("grove.io/v1alpha1", "PodCliqueSet"));
  EXPECT_TRUE(IsGroveWorkload("grove.io/v1alpha1", "PodGangSet"));
  EXPECT_FALSE(IsGroveWorkload("grove.io/v1alpha1", "PodClique"));
  EXPECT_FALSE(IsGroveWorkload("scheduler.grove.io/v1alpha1", "PodGang"));
}

}  // namespace
}  // namespace vtenant::kai

#include "syncer/podgroup_fields.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

// Virtual PodGroup ml/g whose spec is the JSON `spec`.
kube::Object PodGroup(const std::string& spec) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "scheduling.run.ai/v2alpha2"},
      {"kind", "PodGroup"},
      {"metadata", kube::JsonObject{{"name", "g"}, {"namespace", "ml"}, {"uid", "pg"}}},
      {"spec", kube::JsonValue(Json(spec))}});
}

// One row per decision on a virtual PodGroup's spec: the host group's spec,
// built by GangOfPodGroup and PodGroupToHost as the syncer builds it.
TEST(PodGroupFieldsTest, Table) {
  struct Row {
    const char* decision;
    std::string spec;
    std::string host_spec;  // exactly; unused when refused
    std::string refused;    // a word of the refusal, or ""
    DroppedFields dropped;
  } rows[] = {
      {"minMember, priorityClassName, preemptibility and markUnschedulable travel",
       R"({"minMember":2,"priorityClassName":"train","preemptibility":"preemptible",
           "markUnschedulable":true})",
       R"({"minMember":2,"queue":"nlp","priorityClassName":"train",
           "preemptibility":"preemptible","markUnschedulable":true})",
       "",
       {}},
      {"hostile: the queue is always the tenant's",
       R"({"minMember":1,"queue":"vision"})",
       R"({"minMember":1,"queue":"nlp"})",
       "",
       {}},
      {"sub-groups travel with their name, minMember and parent",
       R"({"minMember":3,"subGroups":[{"name":"leader","minMember":1},
           {"name":"workers","minMember":2,"parent":"all"},{"name":"all"}]})",
       R"({"minMember":3,"queue":"nlp","subGroups":[{"name":"leader","minMember":1},
           {"name":"workers","minMember":2,"parent":"all"},{"name":"all"}]})",
       "",
       {}},
      {"a sub-group's topology travels, members beyond KAI's left out",
       R"({"minMember":1,"subGroups":[{"name":"a","minMember":1,"topologyConstraint":{
           "requiredTopologyLevel":"rack","nodes":["n1"]},"shiny":1}]})",
       R"({"minMember":1,"queue":"nlp","subGroups":[{"name":"a","minMember":1,"topologyConstraint":{
           "requiredTopologyLevel":"rack"}}]})",
       "",
       {"spec.subGroups[].topologyConstraint.nodes", "spec.subGroups[].shiny"}},
      {"the group's topology constraint travels: it narrows where the gang goes, never out of "
       "the tenant",
       R"({"minMember":4,"topologyConstraint":{"topology":"default",
           "requiredTopologyLevel":"kubernetes.io/hostname",
           "preferredTopologyLevel":"topology.kubernetes.io/zone"}})",
       R"({"minMember":4,"queue":"nlp","topologyConstraint":{"topology":"default",
           "requiredTopologyLevel":"kubernetes.io/hostname",
           "preferredTopologyLevel":"topology.kubernetes.io/zone"}})",
       "",
       {}},
      {"a topology member no translator knows is left out",
       R"({"minMember":1,"topologyConstraint":{"requiredTopologyLevel":"rack","shiny":"x"}})",
       R"({"minMember":1,"queue":"nlp","topologyConstraint":{"requiredTopologyLevel":"rack"}})",
       "",
       {"spec.topologyConstraint.shiny"}},
      {"a topology constraint that is not an object is refused",
       R"({"minMember":1,"topologyConstraint":"rack"})",
       "",
       "topologyConstraint",
       {}},
      {"a topology level that is not a string is refused",
       R"({"minMember":1,"topologyConstraint":{"requiredTopologyLevel":3}})",
       "",
       "requiredTopologyLevel",
       {}},
      {"what KAI keeps for its own controllers is left out and reported",
       R"({"minMember":1,"schedulingBackoff":1,"backoffLimit":2,"completions":3,
           "parallelism":4})",
       R"({"minMember":1,"queue":"nlp"})",
       "",
       {"spec.schedulingBackoff", "spec.backoffLimit", "spec.completions", "spec.parallelism"}},
  };
  for (const Row& row : rows) {
    Result<Gang> gang = GangOfPodGroup(PodGroup(row.spec), "ml", NlpConfig());
    if (!row.refused.empty()) {
      ASSERT_FALSE(gang.ok()) << row.decision;
      EXPECT_EQ(gang.status().code(), StatusCode::kInvalidArgument) << row.decision;
      EXPECT_NE(gang.status().message().find(row.refused), std::string::npos)
          << row.decision << ": " << gang.status().message();
      continue;
    }
    ASSERT_TRUE(gang.ok()) << row.decision << ": " << gang.status().ToString();
    EXPECT_EQ(gang->dropped, row.dropped) << row.decision;
    kube::Object host = PodGroupToHost(*gang, "ml", "", NlpConfig());
    EXPECT_EQ(host["spec"], Json(row.host_spec))
        << row.decision << ": " << kube::ToJson(host["spec"]);
  }
}

// The steps of GangTest.HostGroupOfAVirtualPodGroupHasItsPriorityClassOrNone
// for another field: a parallel on purpose, one field each.
TEST(PodGroupFieldsTest, TopologyConstraintFollowsTheVirtualGroup) {
  kube::Object pg = PodGroup(R"({"minMember":2,"topologyConstraint":{
      "requiredTopologyLevel":"kubernetes.io/hostname"}})");
  Result<Gang> gang = GangOfPodGroup(pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok());
  kube::Object host = PodGroupToHost(*gang, "ml", "", NlpConfig());
  EXPECT_FALSE(PodGroupUpdate(host, *gang, NlpConfig()));
  pg["spec"].RemoveMember("topologyConstraint");
  gang = GangOfPodGroup(pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok());
  std::optional<kube::Object> update = PodGroupUpdate(host, *gang, NlpConfig());
  ASSERT_TRUE(update);
  EXPECT_FALSE(kube::Find(*update, {"spec", "topologyConstraint"}));
}

}  // namespace
}  // namespace vtenant::syncer

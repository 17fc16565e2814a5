// ReadJobSetGang: the PodGroup KAI's newest pod grouper makes of a JobSet.
#include "kai/jobset_gang.h"

#include <gtest/gtest.h>

#include "kai/object_fields.h"
#include "kube/object.h"
#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

kube::Object Pod(const char* replicated_job, const char* index) {
  return Json(std::string(R"({"metadata":{"name":"p","labels":{
      "jobset.sigs.k8s.io/replicatedjob-name":")") +
              replicated_job + R"(","jobset.sigs.k8s.io/job-index":")" + index + R"("}}})");
}

TEST(ReadJobSetGangTest, AParentPerReplicatedJobAndALeafPerReplica) {
  kube::Object jobset = Json(R"({"metadata":{"name":"train"},"spec":{"replicatedJobs":[
      {"name":"driver","template":{"spec":{"parallelism":1}}},
      {"name":"workers","replicas":2,"template":{"spec":{"parallelism":4}}}]}})");
  Result<SubGroupGang> gang = ReadJobSetGang(jobset, Pod("workers", "1"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->min_sub_group, 2) << "AnyOrder: every replicatedJob";
  EXPECT_EQ(gang->sub_groups,
            (std::vector<GangSubGroup>{{"driver", "", std::nullopt, 1},
                                       {"driver-replica-0", "driver", 1, std::nullopt},
                                       {"workers", "", std::nullopt, 2},
                                       {"workers-replica-0", "workers", 4, std::nullopt},
                                       {"workers-replica-1", "workers", 4, std::nullopt}}));
  EXPECT_EQ(gang->pod_sub_group, "workers-replica-1");
  rapidjson::Document scratch;
  EXPECT_EQ(JsonText(SubGroupsValue(*gang, scratch.GetAllocator())),
            R"([{"name":"driver","minSubGroup":1},)"
            R"({"name":"driver-replica-0","parent":"driver","minMember":1},)"
            R"({"name":"workers","minSubGroup":2},)"
            R"({"name":"workers-replica-0","parent":"workers","minMember":4},)"
            R"({"name":"workers-replica-1","parent":"workers","minMember":4}])");
}

TEST(ReadJobSetGangTest, InOrderAndTheAnnotationsSetTheMinimums) {
  kube::Object in_order = Json(R"({"metadata":{"name":"t"},"spec":{
      "startupPolicy":{"startupPolicyOrder":"InOrder"},
      "replicatedJobs":[{"name":"a"},{"name":"b"}]}})");
  EXPECT_EQ(ReadJobSetGang(in_order, Pod("a", "0"))->min_sub_group, 1);
  kube::Object annotated = Json(R"({"metadata":{"name":"t",
      "annotations":{"kai.scheduler/batch-min-member":"5"}},"spec":{"replicatedJobs":[
      {"name":"a","template":{"metadata":{"annotations":{"kai.scheduler/batch-min-member":"2"}},
                              "spec":{"parallelism":8}}},{"name":"b"}]}})");
  Result<SubGroupGang> gang = ReadJobSetGang(annotated, Pod("a", "0"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->min_sub_group, 2) << "at most the number of replicatedJobs";
  EXPECT_EQ(gang->sub_groups[1].min_member, 2) << "the template's annotation over parallelism";
}

// As KAI's grouper: each replica of a replicatedJob whose template names a
// Topology and a level shares a domain of its own; the parent gets none.
TEST(ReadJobSetGangTest, EachReplicaTakesItsTemplatesTopology) {
  kube::Object jobset = Json(R"({"metadata":{"name":"t"},"spec":{"replicatedJobs":[
      {"name":"a","replicas":2,"template":{"metadata":{"annotations":{
          "kai.scheduler/topology":"dc","kai.scheduler/topology-required-placement":"rack",
          "kai.scheduler/topology-preferred-placement":"host"}}}},
      {"name":"b","template":{"metadata":{"annotations":{
          "kai.scheduler/topology-required-placement":"rack"}}}},
      {"name":"c","template":{"metadata":{"annotations":{"kai.scheduler/topology":"dc"}}}}]}})");
  Result<SubGroupGang> gang = ReadJobSetGang(jobset, Pod("a", "0"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  const TopologyConstraint rack{"dc", "rack", "host"};
  EXPECT_EQ(gang->sub_groups[0].topology, TopologyConstraint{}) << "the replicatedJob's parent";
  EXPECT_EQ(gang->sub_groups[1].topology, rack);
  EXPECT_EQ(gang->sub_groups[2].topology, rack);
  EXPECT_EQ(gang->sub_groups[4].topology, TopologyConstraint{}) << "a level without a Topology";
  EXPECT_EQ(gang->sub_groups[6].topology, TopologyConstraint{}) << "a Topology without a level";
  rapidjson::Document scratch;
  EXPECT_NE(JsonText(SubGroupsValue(*gang, scratch.GetAllocator()))
                .find(R"({"name":"a-replica-1","parent":"a","minMember":1,"topologyConstraint":)"
                      R"({"topology":"dc","requiredTopologyLevel":"rack",)"
                      R"("preferredTopologyLevel":"host"}})"),
            std::string::npos);
}

TEST(ReadJobSetGangTest, RefusesWhatKaisGrouperRefuses) {
  struct Case {
    const char* jobset;
    const char* rj;
    const char* index;
    const char* says;
  };
  const Case cases[] = {
      {R"({"metadata":{"name":"t"},"spec":{}})", "a", "0", "JobSet t has no spec.replicatedJobs"},
      {R"({"metadata":{"name":"t"},"spec":{"replicatedJobs":[{"replicas":1}]}})", "a", "0",
       "replicatedJobs[0] has no name"},
      {R"({"metadata":{"name":"t","annotations":{"kai.scheduler/batch-min-member":"0"}},
          "spec":{"replicatedJobs":[{"name":"a"}]}})",
       "a", "0", "kai.scheduler/batch-min-member \"0\""},
      {R"({"metadata":{"name":"t"},"spec":{"replicatedJobs":[{"name":"a"}]}})", "", "0",
       "lacks the labels"},
      {R"({"metadata":{"name":"t"},"spec":{"replicatedJobs":[{"name":"a"}]}})", "a", "3",
       "has no replica a-replica-3"},
  };
  for (const Case& c : cases) {
    Result<SubGroupGang> gang = ReadJobSetGang(Json(c.jobset), Pod(c.rj, c.index));
    ASSERT_FALSE(gang.ok()) << c.says;
    EXPECT_NE(gang.status().message().find(c.says), std::string::npos) << gang.status().message();
  }
}

}  // namespace
}  // namespace vtenant::kai

// ReadLeaderWorkerSetGang: the PodGroup KAI's pod grouper makes of one
// replica group of a LeaderWorkerSet. The segment cases restate KAI's own
// grouper tests (the same sizes and expected sub-groups).
#include "kai/leader_worker_set_gang.h"

#include <gtest/gtest.h>

#include "kai/object_fields.h"
#include "kube/object.h"
#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

// A LeaderWorkerSet of `size`; `extra` is more of its spec, as JSON
// members.
kube::Object Lws(int size, const std::string& extra = "", const std::string& template_extra = "") {
  return Json(R"({"metadata":{"name":"serve"},"spec":{)" + extra + (extra.empty() ? "" : ",") +
              R"("leaderWorkerTemplate":{)" + template_extra + (template_extra.empty() ? "" : ",") +
              R"("size":)" + std::to_string(size) + "}}}");
}

kube::Object Pod(const std::string& worker, const std::string& group = "0",
                 const std::string& more = "") {
  return Json(R"({"metadata":{"name":"p","labels":{
      "leaderworkerset.sigs.k8s.io/group-index":")" +
              group + R"(","leaderworkerset.sigs.k8s.io/worker-index":")" + worker + R"("})" +
              more + "}}");
}

GangSubGroup Leaf(const char* name, int32_t min, const char* parent = "") {
  return {name, parent, min, std::nullopt};
}
GangSubGroup Parent(const char* name, int32_t min) { return {name, "", std::nullopt, min}; }

TEST(ReadLeaderWorkerSetGangTest, OneGroupPerReplicaWithALeaderAndItsWorkers) {
  Result<SubGroupGang> gang = ReadLeaderWorkerSetGang(Lws(3), Pod("1", "2"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->min_member, 3) << "LeaderCreated (the default): the whole group at once";
  EXPECT_FALSE(gang->min_sub_group.has_value());
  EXPECT_EQ(gang->sub_groups, (std::vector<GangSubGroup>{Leaf("leader", 1), Leaf("workers", 2)}));
  EXPECT_EQ(gang->pod_sub_group, "workers");
  EXPECT_EQ(gang->name_suffix, "-group-2");
  EXPECT_EQ(ReadLeaderWorkerSetGang(Lws(3), Pod("0"))->pod_sub_group, "leader");
  EXPECT_EQ(ReadLeaderWorkerSetGang(Lws(3), Pod("1", "x"))->name_suffix, "")
      << "a group index that is no number names no group, as in KAI";

  Result<SubGroupGang> alone = ReadLeaderWorkerSetGang(Lws(1), Pod("0"));
  ASSERT_TRUE(alone.ok()) << alone.status().ToString();
  EXPECT_EQ(alone->sub_groups, (std::vector<GangSubGroup>{Leaf("leader", 1)}));
  rapidjson::Document scratch;
  EXPECT_EQ(JsonText(SubGroupsValue(*gang, scratch.GetAllocator())),
            R"([{"name":"leader","minMember":1},{"name":"workers","minMember":2}])");
}

// LeaderReady: the workers are made once the leader is ready, so the group
// first asks for its leader alone.
TEST(ReadLeaderWorkerSetGangTest, LeaderReadyAsksForAnUnboundLeaderAlone) {
  const kube::Object lws = Lws(3, R"("startupPolicy":"LeaderReady")");
  Result<SubGroupGang> leader = ReadLeaderWorkerSetGang(lws, Pod("0"));
  ASSERT_TRUE(leader.ok()) << leader.status().ToString();
  EXPECT_EQ(leader->min_member, 1);
  EXPECT_EQ(leader->sub_groups, (std::vector<GangSubGroup>{Leaf("leader", 1)}));

  kube::Object bound = Pod("0");
  kube::SetString(bound, {"spec"}, "nodeName", "n1");
  EXPECT_EQ(ReadLeaderWorkerSetGang(lws, bound)->min_member, 3);
  Result<SubGroupGang> worker = ReadLeaderWorkerSetGang(
      Lws(5, R"("startupPolicy":"LeaderReady")"),
      Pod("2", "0", R"(,"annotations":{"leaderworkerset.sigs.k8s.io/size":"4"})"));
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  EXPECT_EQ(worker->min_member, 4) << "the pod's own size annotation";
  EXPECT_EQ(worker->sub_groups, (std::vector<GangSubGroup>{Leaf("leader", 1), Leaf("workers", 3)}));
}

// Size 5, segments of 2: s divides the 4 workers, so segment 0 is the
// leader and workers 1-2, segment 1 workers 3-4.
TEST(ReadLeaderWorkerSetGangTest, SegmentsWhenTheSizeLessOneDivides) {
  const kube::Object lws = Lws(5, "", R"("subGroupPolicy":{"subGroupSize":2})");
  const std::vector<GangSubGroup> want{Parent("segment-0", 2), Leaf("segment-1", 2),
                                       Leaf("leader", 1, "segment-0"),
                                       Leaf("workers", 2, "segment-0")};
  for (const auto& [worker, leaf] : std::vector<std::pair<std::string, std::string>>{
           {"0", "leader"}, {"2", "workers"}, {"3", "segment-1"}, {"4", "segment-1"}}) {
    Result<SubGroupGang> gang = ReadLeaderWorkerSetGang(lws, Pod(worker));
    ASSERT_TRUE(gang.ok()) << gang.status().ToString();
    EXPECT_EQ(gang->min_member, 5);
    EXPECT_EQ(gang->sub_groups, want);
    EXPECT_EQ(gang->pod_sub_group, leaf) << "worker " << worker;
  }
}

// Size 4, segments of 2: 2 does not divide the 3 workers, so the leader
// takes a place in segment 0 (leader, worker 1) and segment 1 is 2-3.
TEST(ReadLeaderWorkerSetGangTest, SegmentsWhenItDoesNot) {
  Result<SubGroupGang> gang =
      ReadLeaderWorkerSetGang(Lws(4, "", R"("subGroupPolicy":{"subGroupSize":2})"), Pod("2"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(
      gang->sub_groups,
      (std::vector<GangSubGroup>{Parent("segment-0", 2), Leaf("segment-1", 2),
                                 Leaf("leader", 1, "segment-0"), Leaf("workers", 1, "segment-0")}));
  EXPECT_EQ(gang->pod_sub_group, "segment-1");
  // Size 5, segments of 3 from the workerTemplate's annotation: 0-2, 3-4.
  Result<SubGroupGang> uneven = ReadLeaderWorkerSetGang(
      Lws(5, "",
          R"("workerTemplate":{"metadata":{"annotations":{"kai.scheduler/segment-size":"3"}}})"),
      Pod("4"));
  ASSERT_TRUE(uneven.ok()) << uneven.status().ToString();
  EXPECT_EQ(
      uneven->sub_groups,
      (std::vector<GangSubGroup>{Parent("segment-0", 2), Leaf("segment-1", 2),
                                 Leaf("leader", 1, "segment-0"), Leaf("workers", 2, "segment-0")}));
}

TEST(ReadLeaderWorkerSetGangTest, LeaderExcludedPutsTheLeaderInASubGroupOfItsOwn) {
  const kube::Object lws = Json(R"({"metadata":{"name":"serve",
      "annotations":{"kai.scheduler/segment-size":"2"}},"spec":{"leaderWorkerTemplate":{
      "size":5,"subGroupPolicy":{"subGroupPolicyType":"LeaderExcluded"}}}})");
  for (const auto& [worker, leaf] : std::vector<std::pair<std::string, std::string>>{
           {"0", "leader"}, {"1", "segment-0"}, {"3", "segment-1"}}) {
    Result<SubGroupGang> gang = ReadLeaderWorkerSetGang(lws, Pod(worker));
    ASSERT_TRUE(gang.ok()) << gang.status().ToString();
    EXPECT_EQ(gang->sub_groups, (std::vector<GangSubGroup>{Leaf("leader", 1), Leaf("segment-0", 2),
                                                           Leaf("segment-1", 2)}));
    EXPECT_EQ(gang->pod_sub_group, leaf) << "worker " << worker;
  }
}

// One segment holding the whole group: each leaf asks for the pods it
// holds (KAI counts the leader again there, and such a group never starts).
TEST(ReadLeaderWorkerSetGangTest, ALoneSegmentAsksForThePodsItHolds) {
  Result<SubGroupGang> with_leader =
      ReadLeaderWorkerSetGang(Lws(3, "", R"("subGroupPolicy":{"subGroupSize":2})"), Pod("1"));
  ASSERT_TRUE(with_leader.ok()) << with_leader.status().ToString();
  EXPECT_EQ(with_leader->sub_groups,
            (std::vector<GangSubGroup>{Parent("segment-0", 2), Leaf("leader", 1, "segment-0"),
                                       Leaf("workers", 2, "segment-0")}));
  Result<SubGroupGang> excluded = ReadLeaderWorkerSetGang(
      Lws(3, "", R"("subGroupPolicy":{"subGroupSize":2,"subGroupPolicyType":"LeaderExcluded"})"),
      Pod("1"));
  ASSERT_TRUE(excluded.ok()) << excluded.status().ToString();
  EXPECT_EQ(excluded->sub_groups,
            (std::vector<GangSubGroup>{Leaf("leader", 1), Leaf("segment-0", 2)}));
}

// As KAI's grouper: every segment shares a domain by the segment-topology
// annotations (the pod's, else the workerTemplate's; the Topology also
// from the LWS); the leaves inside segment 0 and an excluded leader get none.
TEST(ReadLeaderWorkerSetGangTest, EachSegmentTakesTheSegmentTopology) {
  const kube::Object lws = Json(R"({"metadata":{"name":"serve",
      "annotations":{"kai.scheduler/topology":"dc"}},"spec":{"leaderWorkerTemplate":{
      "size":5,"subGroupPolicy":{"subGroupSize":2},"workerTemplate":{"metadata":{"annotations":{
      "kai.scheduler/segment-topology-required-placement":"rack"}}}}}})");
  Result<SubGroupGang> gang = ReadLeaderWorkerSetGang(lws, Pod("3"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  const TopologyConstraint rack{"dc", "rack", ""};
  ASSERT_EQ(gang->sub_groups.size(), 4u);
  EXPECT_EQ(gang->sub_groups[0].topology, rack) << gang->sub_groups[0].name;
  EXPECT_EQ(gang->sub_groups[1].topology, rack) << gang->sub_groups[1].name;
  EXPECT_EQ(gang->sub_groups[2].topology, TopologyConstraint{}) << gang->sub_groups[2].name;
  EXPECT_EQ(gang->sub_groups[3].topology, TopologyConstraint{}) << gang->sub_groups[3].name;

  // The pod's own annotation names the level.
  Result<SubGroupGang> own = ReadLeaderWorkerSetGang(
      lws, Pod("3", "0",
               R"(,"annotations":{"kai.scheduler/segment-topology-required-placement":"zone"})"));
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  EXPECT_EQ(own->sub_groups[1].topology, (TopologyConstraint{"dc", "zone", ""}));

  const kube::Object excluded = Json(R"({"metadata":{"name":"serve"},"spec":{
      "leaderWorkerTemplate":{"size":5,"subGroupPolicy":{"subGroupSize":2,
      "subGroupPolicyType":"LeaderExcluded"},"workerTemplate":{"metadata":{"annotations":{
      "kai.scheduler/topology":"dc","kai.scheduler/segment-topology-preferred-placement":"rack"}}}}}})");
  Result<SubGroupGang> apart = ReadLeaderWorkerSetGang(excluded, Pod("1"));
  ASSERT_TRUE(apart.ok()) << apart.status().ToString();
  EXPECT_EQ(apart->sub_groups[0].topology, TopologyConstraint{}) << "the leader";
  EXPECT_EQ(apart->sub_groups[1].topology, (TopologyConstraint{"dc", "", "rack"}));
}

TEST(ReadLeaderWorkerSetGangTest, RefusesWhatCannotBeAGang) {
  struct Case {
    kube::Object lws;
    kube::Object pod;
    const char* says;
  };
  const std::string segments = R"("subGroupPolicy":{"subGroupSize":)";
  const Case cases[] = {
      {Json(R"({"metadata":{"name":"serve"},"spec":{}})"), Pod("0"),
       "LeaderWorkerSet serve has no spec.leaderWorkerTemplate.size"},
      {Lws(0), Pod("0"), "size 0 is not a whole number of at least 1"},
      {Lws(2, R"("startupPolicy":"Eventually")"), Pod("0"), "unknown startupPolicy"},
      {Lws(2), Pod("-1"), "is not a whole number of at least 0"},
      {Lws(2), Pod("one"), "is not a whole number of at least 0"},
      {Lws(4, "", segments + "1}"), Pod("1"), "segment size 1 must be from 2"},
      {Lws(4, "", segments + "5}"), Pod("1"), "segment size 5 must be from 2"},
      {Lws(4, "", segments + R"("2"})"), Pod("1"), "subGroupSize \"2\" is not a whole number"},
      {Lws(4, "", segments + R"(2,"subGroupPolicyType":"Alone"})"), Pod("1"),
       "unknown subGroupPolicyType"},
      {Lws(4, "", segments + R"(2,"subGroupPolicyType":"LeaderExcluded"})"), Pod("1"), "does not"},
      {Lws(4, "", segments + "2}"), Pod("9"), "beyond the group's size"},
      {Lws(4, "", segments + "2}"), Json(R"({"metadata":{"name":"p"}})"),
       "lacks the label leaderworkerset.sigs.k8s.io/worker-index"},
      {Json(R"({"metadata":{"name":"serve","annotations":{"kai.scheduler/segment-size":"two"}},
                "spec":{"leaderWorkerTemplate":{"size":4}}})"),
       Pod("1"), "kai.scheduler/segment-size \"two\" is not a whole number"},
  };
  for (const Case& c : cases) {
    Result<SubGroupGang> gang = ReadLeaderWorkerSetGang(c.lws, c.pod);
    ASSERT_FALSE(gang.ok()) << c.says;
    EXPECT_NE(gang.status().message().find(c.says), std::string::npos) << gang.status().message();
  }
}

}  // namespace
}  // namespace vtenant::kai

// ReadPodGroupSpec, ReadSubGroups, ParseBatchMinMember and
// WorkloadPreemptibility: KAI's rules for gangs, read once.
#include "kai/podgroup_spec.h"

#include <gtest/gtest.h>

#include "kai/min_member.h"
#include "kai/preemptibility.h"
#include "kube/json_builder.h"
#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

// The spec of PodGroup "g" read, `spec` its JSON.
Result<PodGroupSpec> Spec(const std::string& spec) {
  return ReadPodGroupSpec(kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", "g"}}}, {"spec", kube::JsonValue(Json(spec))}}));
}

TEST(ReadPodGroupSpecTest, ReadsEveryField) {
  Result<PodGroupSpec> s = Spec(R"({"minMember":4,"queue":"nlp","preemptibility":"non-preemptible",
      "markUnschedulable":false,"priorityClassName":"train",
      "subGroups":[{"name":"workers","minMember":3},{"name":"ps"}],
      "preemptionDelay":"1m30s","stalenessGracePeriod":"500ms"})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->min_member, 4);
  EXPECT_EQ(s->preemptibility, kNonPreemptible);
  EXPECT_EQ(s->mark_unschedulable, std::optional<bool>(false));
  EXPECT_EQ(s->priority_class, "train");
  EXPECT_EQ(s->sub_groups.leaves, (std::vector<SubGroup>{{"workers", 3}, {"ps", 0}}));
  EXPECT_EQ(s->preemption_delay_s, 90);
  EXPECT_EQ(s->staleness_grace_s, 1) << "rounded up: never none";
  EXPECT_EQ(Spec(R"({"stalenessGracePeriod":"-1s"})")->staleness_grace_s, -1);
  EXPECT_EQ(Spec(R"({"stalenessGracePeriod":"-10ms"})")->staleness_grace_s, -1)
      << "negative, however small, is never";
}

TEST(ReadPodGroupSpecTest, UnsetFieldsTakeKaisDefaults) {
  for (const char* spec : {"{}", R"({"minMember":null,"preemptibility":"",
      "markUnschedulable":null,"subGroups":null})"}) {
    Result<PodGroupSpec> s = Spec(spec);
    ASSERT_TRUE(s.ok()) << spec << ": " << s.status().ToString();
    EXPECT_EQ(s->min_member, 1);
    EXPECT_EQ(s->preemptibility, "");
    EXPECT_FALSE(s->mark_unschedulable);
    EXPECT_TRUE(s->sub_groups.leaves.empty());
    EXPECT_FALSE(s->preemption_delay_s);
    EXPECT_FALSE(s->staleness_grace_s);
  }
  EXPECT_TRUE(ReadPodGroupSpec(Json(R"({"metadata":{"name":"g"}})")).ok()) << "no spec at all";
}

// KAI's CRD takes 0: "no gang requirement", each pod on its own, as a gang
// of one goes.
TEST(ReadPodGroupSpecTest, MinMemberZeroIsNoGang) {
  Result<PodGroupSpec> s = Spec(R"({"minMember":0})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->min_member, 1);
}

TEST(ReadPodGroupSpecTest, RefusalsNameTheField) {
  struct Case {
    const char* spec;
    const char* says;
  };
  const Case cases[] = {
      {R"({"minMember":-3})", "spec.minMember -3 must be a whole number from 0"},
      {R"({"minMember":2.5})", "spec.minMember 2.5"},
      {R"({"minMember":"4"})", "spec.minMember \"4\""},
      {R"({"minMember":4294967296})", "spec.minMember 4294967296"},
      {R"({"preemptibility":"maybe"})", "spec.preemptibility \"maybe\" must be"},
      {R"({"preemptibility":true})", "spec.preemptibility true"},
      {R"({"markUnschedulable":"yes"})", "spec.markUnschedulable \"yes\" must be true or false"},
      {R"({"priorityClassName":7})", "spec.priorityClassName 7"},
      {R"({"subGroups":[{"name":"a"},{"name":"a"}]})", "spec.subGroups[1] repeats the name"},
      {R"({"preemptionDelay":"-5s"})", "spec.preemptionDelay \"-5s\" must be a duration"},
      {R"({"preemptionDelay":30})", "spec.preemptionDelay 30 must be a duration"},
      {R"({"stalenessGracePeriod":"soon"})", "spec.stalenessGracePeriod \"soon\" must be"},
  };
  for (const Case& c : cases) {
    Result<PodGroupSpec> s = Spec(c.spec);
    ASSERT_FALSE(s.ok()) << c.spec;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find(c.says), std::string::npos)
        << s.status().message() << "\n  wanted: " << c.says;
  }
}

TEST(ReadSubGroupsTest, LeavesHoldPodsParentsGroupThem) {
  rapidjson::Document subs = Json(R"([{"name":"decode","minMember":2},
      {"name":"prefill","parent":"decode","minMember":0},{"name":"other"}])");
  Result<SubGroups> s = ReadSubGroups(&subs);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->leaves, (std::vector<SubGroup>{{"prefill", 0, "decode"}, {"other", 0}}))
      << "a minMember of 0 or none is KAI's 0: the leaf holds back nothing";
  EXPECT_EQ(s->parents, std::vector<SubGroupSet>{{"decode"}}) << "a parent's minMember is unused";
  EXPECT_EQ(s->top_level, 2);
  EXPECT_TRUE(ReadSubGroups(nullptr)->leaves.empty());
}

TEST(ReadSubGroupsTest, RefusesWhatKaisWebhookRefuses) {
  struct Case {
    const char* subs;
    const char* says;
  };
  const Case cases[] = {
      {R"({"name":"a"})", "spec.subGroups is not a list"},
      {R"(["a"])", "spec.subGroups[0] is not an object"},
      {R"([{"minMember":1}])", "spec.subGroups[0] has no name"},
      {R"([{"name":"a","minMember":-1}])", "minMember -1 is negative"},
      {R"([{"name":"a","minMember":"2"}])", "minMember is not an integer"},
      {R"([{"name":"a","parent":"b"}])", "names parent \"b\""},
      {R"([{"name":"a","parent":3}])", "parent is not a sub-group name"},
      {R"([{"name":"a","parent":"b"},{"name":"b","parent":"a"}])", "its own ancestor"},
      {R"([{"name":"a","minMember":1,"minSubGroup":0}])", "sets both minMember and minSubGroup"},
      {R"([{"name":"a","minSubGroup":1}])", "no sub-group names it as parent"},
      {R"([{"name":"a","minSubGroup":2},{"name":"b","parent":"a"}])",
       "minSubGroup 2 is more than its 1 child sub-groups"},
      {R"([{"name":"a","minSubGroup":"1"},{"name":"b","parent":"a"}])",
       "minSubGroup is not an integer"},
      {R"([{"name":"a","topologyConstraint":"rack"}])",
       "(\"a\") topologyConstraint is not an object"},
      {R"([{"name":"a","topologyConstraint":{"requiredTopologyLevel":3}}])",
       "topologyConstraint.requiredTopologyLevel is not a string"},
  };
  for (const Case& c : cases) {
    rapidjson::Document subs = Json(c.subs);
    Result<SubGroups> s = ReadSubGroups(&subs);
    ASSERT_FALSE(s.ok()) << c.subs;
    EXPECT_NE(s.status().message().find(c.says), std::string::npos)
        << s.status().message() << "\n  wanted: " << c.says;
  }
}

TEST(ReadSubGroupsTest, EachEntryMayHaveATopologyOfItsOwn) {
  rapidjson::Document subs = Json(R"([{"name":"replica","topologyConstraint":{"topology":"dc",
      "requiredTopologyLevel":"zone"}},{"name":"w","parent":"replica","minMember":2,
      "topologyConstraint":{"topology":"dc","preferredTopologyLevel":"rack"}}])");
  Result<SubGroups> s = ReadSubGroups(&subs);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->parents[0].topology, (TopologyConstraint{"dc", "zone", ""}));
  EXPECT_EQ(s->leaves[0].topology, (TopologyConstraint{"dc", "", "rack"}));
}

// KAI's minSubGroup: how many children a parent (or the group) needs.
TEST(ReadSubGroupsTest, MinSubGroupCountsChildren) {
  rapidjson::Document subs = Json(R"([{"name":"replicas","minSubGroup":1},
      {"name":"r0","parent":"replicas","minMember":2},{"name":"r1","parent":"replicas"},
      {"name":"leader","minMember":1}])");
  Result<SubGroups> s = ReadSubGroups(&subs);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->parents, (std::vector<SubGroupSet>{{"replicas", "", 1}}));
  EXPECT_EQ(s->leaves,
            (std::vector<SubGroup>{{"r0", 2, "replicas"}, {"r1", 0, "replicas"}, {"leader", 1}}));

  rapidjson::Document group = Json(R"({"spec":{"minSubGroup":2,"subGroups":[{"name":"a"},
      {"name":"b"},{"name":"c","parent":"b"}]}})");
  Result<PodGroupSpec> spec = ReadPodGroupSpec(group);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->min_sub_group, 2);
  for (const char* bad : {R"({"spec":{"minSubGroup":3,"subGroups":[{"name":"a"},{"name":"b"}]}})",
                          R"({"spec":{"minSubGroup":-1}})", R"({"spec":{"minSubGroup":"1"}})",
                          R"({"spec":{"minMember":1,"minSubGroup":0}})"}) {
    rapidjson::Document d = Json(bad);
    EXPECT_FALSE(ReadPodGroupSpec(d).ok()) << bad;
  }
  rapidjson::Document none = Json(R"({"spec":{"minSubGroup":0}})");
  EXPECT_TRUE(ReadPodGroupSpec(none).ok()) << "0 of no sub-groups asks for nothing";
}

TEST(ParseBatchMinMemberTest, PlainWholeNumbersFromOne) {
  EXPECT_EQ(*ParseBatchMinMember("4"), 4);
  EXPECT_EQ(*ParseBatchMinMember("2147483647"), 2147483647);
  EXPECT_EQ(*ParseBatchMinMember("+4"), 4) << "as Go's strconv.ParseInt";
  for (const char* text :
       {"0", "-1", "+-4", " 4", "4.0", "four", "", "2147483648", "99999999999"}) {
    Result<int32_t> got = ParseBatchMinMember(text);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_NE(got.status().message().find(std::string("kai.scheduler/batch-min-member \"") + text +
                                          "\" must be a whole number from 1"),
              std::string::npos)
        << got.status().message();
  }
}

TEST(WorkloadPreemptibilityTest, FirstValidLabelTopOwnerFirstThenThePod) {
  rapidjson::Document top = Json(R"({"metadata":{"labels":{"kai.scheduler/preemptibility":"x"}}})");
  rapidjson::Document job =
      Json(R"({"metadata":{"labels":{"kai.scheduler/preemptibility":"non-preemptible"}}})");
  rapidjson::Document pod =
      Json(R"({"metadata":{"labels":{"kai.scheduler/preemptibility":"preemptible"}}})");
  rapidjson::Document plain = Json(R"({"metadata":{}})");
  EXPECT_EQ(WorkloadPreemptibility({&top, &job, &pod}), kNonPreemptible)
      << "an invalid value is passed over";
  EXPECT_EQ(WorkloadPreemptibility({nullptr, &plain, &pod}), kPreemptible);
  EXPECT_EQ(WorkloadPreemptibility({&plain}), "");
}

}  // namespace
}  // namespace vtenant::kai

// Topology constraints on sub-groups, as KAI gives a JobSet's replicas or
// an LWS's segments each a domain of their own within the job's.
#include "scheduler-core/topology_placement.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

// One-GPU pods of group "job", `per_leaf` in each leaf, named
// "<leaf>-<i>", created in order.
void AddMembers(SnapshotBuilder& b, const std::vector<std::string>& leaves, int per_leaf) {
  int64_t created = 0;
  for (const std::string& leaf : leaves)
    for (int i = 0; i < per_leaf; ++i)
      b.AddPod({.name = leaf + "-" + std::to_string(i),
                .group = "job",
                .subgroup = leaf,
                .whole_gpus = 1,
                .creation_time = created++});
}

// The values of `label` on the nodes `pods` were bound to.
std::set<std::string> DomainsOf(const Decisions& d, const Snapshot& s,
                                const std::vector<std::string>& pods, const std::string& label) {
  std::set<std::string> domains;
  for (const std::string& pod : pods) {
    const std::string node = NodeOf(d, s, pod);
    for (NodeId n = 0; n < s.nodes.size(); ++n) {
      if (s.nodes[n].name != node) continue;
      for (const Label& l : s.nodes[n].labels)
        if (s.strings.Get(l.key) == label) domains.insert(s.strings.Get(l.value));
    }
  }
  return domains;
}

SnapshotBuilder Racks(std::vector<std::tuple<std::string, std::string, std::string, int>> nodes) {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {});
  for (auto& [name, zone, rack, gpus] : nodes)
    b.AddNode(GpuNode(name, gpus, kL40sMib, {{"zone", zone}, {"rack", rack}}));
  return b;
}

// Group "job" of queue "team" with `leaves`, each sub-group's levels in
// `topology`, and `extra` for the rest of the spec.
GroupSpec Job(int32_t min_member, std::vector<SubGroup> leaves,
              std::map<std::string, GroupSpec::Levels> topology, GroupSpec extra = {}) {
  extra.name = "job";
  extra.queue = "team";
  extra.min_member = min_member;
  extra.subgroups = std::move(leaves);
  extra.subgroup_topology = std::move(topology);
  return extra;
}

TEST(TopologyPlacementTest, EachSubGroupSharesADomainOfItsOwn) {
  // Racks a (3 GPUs) and b (1 + 2): neither holds the job, each a replica.
  // Binpack alone would fill the fullest nodes first and split r1 between
  // b2 and a1.
  SnapshotBuilder b = Racks({{"a1", "z", "a", 3}, {"b1", "z", "b", 1}, {"b2", "z", "b", 2}});
  b.AddGroup(
      Job(4, {{"r0", 2}, {"r1", 2}}, {{"r0", {.required = "rack"}}, {"r1", {.required = "rack"}}}));
  AddMembers(b, {"r0", "r1"}, 2);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.binds.size(), 4u);
  EXPECT_EQ(DomainsOf(d, s, {"r0-0", "r0-1"}, "rack").size(), 1u);
  EXPECT_EQ(DomainsOf(d, s, {"r1-0", "r1-1"}, "rack").size(), 1u);
}

TEST(TopologyPlacementTest, AJobDomainWhoseRacksCannotEachHoldASubGroupIsPassedOver) {
  // Zone x has the four GPUs the job asks for, but no two of them in one
  // rack after the first replica takes two; zone y has two racks of two.
  // Binpack alone would fill zone x.
  SnapshotBuilder b = Racks({{"x1", "x", "r1", 3},
                             {"x2", "x", "r2", 1},
                             {"y1", "y", "r3", 2},
                             {"y2", "y", "r4", 2},
                             {"y3", "y", "r4", 1}});
  b.AddGroup(Job(4, {{"r0", 2}, {"r1", 2}},
                 {{"r0", {.required = "rack"}}, {"r1", {.required = "rack"}}},
                 {.required_topology = "zone"}));
  AddMembers(b, {"r0", "r1"}, 2);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.binds.size(), 4u);
  EXPECT_EQ(DomainsOf(d, s, {"r0-0", "r0-1", "r1-0", "r1-1"}, "zone"), std::set<std::string>{"y"});
  EXPECT_EQ(DomainsOf(d, s, {"r0-0", "r0-1"}, "rack").size(), 1u);
  EXPECT_EQ(DomainsOf(d, s, {"r1-0", "r1-1"}, "rack").size(), 1u);
}

TEST(TopologyPlacementTest, ASetKeepsAllItsLeavesInOneDomain) {
  // Racks a (2 GPUs) and b (3 GPUs): the set's three pods go to b.
  SnapshotBuilder b = Racks({{"a1", "z", "a", 2}, {"b1", "z", "b", 3}});
  b.AddGroup(Job(3, {{"leader", 1, 0}, {"workers", 2, 0}}, {{"replica", {.required = "rack"}}},
                 {.subgroup_sets = {{"replica"}}}));
  b.AddPod({.name = "leader-0", .group = "job", .subgroup = "leader", .whole_gpus = 1});
  AddMembers(b, {"workers"}, 2);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.binds.size(), 3u);
  EXPECT_EQ(DomainsOf(d, s, {"leader-0", "workers-0", "workers-1"}, "rack"),
            std::set<std::string>{"b"});
}

TEST(TopologyPlacementTest, NoDomainForASubGroupHoldsTheJobAndSaysWhichLevel) {
  SnapshotBuilder b = Racks({{"a1", "z", "a", 2}, {"b1", "z", "b", 2}});
  b.AddGroup(Job(3, {{"r0", 3}}, {{"r0", {.required = "rack"}}}));
  AddMembers(b, {"r0"}, 3);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_TRUE(d.binds.empty());
  EXPECT_EQ(ReasonOf(d, s, "r0-0"),
            "gang job (minMember 3) needs 3 pods within one rack domain; no single domain has "
            "room");
}

TEST(TopologyPlacementTest, RunningPodsHoldTheirSubGroupToTheirDomain) {
  // r0-0 runs in rack a, which is full; rack b has room, but r0-1 must
  // join r0-0.
  SnapshotBuilder b = Racks({{"a1", "z", "a", 1}, {"b1", "z", "b", 2}});
  b.AddGroup(Job(1, {{"r0", 1}}, {{"r0", {.required = "rack"}}}));
  b.AddPod(Running(
      {.name = "r0-0", .group = "job", .subgroup = "r0", .whole_gpus = 1, .creation_time = 0}, "a1",
      {0}));
  b.AddPod({.name = "r0-1", .group = "job", .subgroup = "r0", .whole_gpus = 1, .creation_time = 1});
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(BindOf(d, s, "r0-1"), nullptr);
}

TEST(TopologyPlacementTest, APreferredDomainAnywhereComesBeforeARequiredOneWhole) {
  // Zone z has two racks of one GPU; zone w one rack of two. Binpack ranks
  // the zones alike, z first, but only w has a rack that holds both pods.
  SnapshotBuilder b = Racks({{"a1", "z", "a", 1}, {"b1", "z", "b", 1}, {"c1", "w", "c", 2}});
  b.AddGroup(Job(2, {{"r0", 2}}, {{"r0", {.required = "zone", .preferred = "rack"}}}));
  AddMembers(b, {"r0"}, 2);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.binds.size(), 2u);
  EXPECT_EQ(DomainsOf(d, s, {"r0-0", "r0-1"}, "rack"), std::set<std::string>{"c"});
}

TEST(TopologyPlacementTest, APreferredLevelNoDomainOfWhichHoldsThePodsIsLeftBehind) {
  SnapshotBuilder b = Racks({{"a1", "z", "a", 1}, {"b1", "z", "b", 1}});
  b.AddGroup(Job(2, {{"r0", 2}}, {{"r0", {.required = "zone", .preferred = "rack"}}}));
  AddMembers(b, {"r0"}, 2);
  Snapshot s = MustBuild(b);
  EXPECT_EQ(RunCycle(s).binds.size(), 2u);
}

// A team may write thousands of constrained sub-groups; the walk stops
// after Options::topology_max_domain_tries domains. Zone x (seven racks of
// one GPU) ranks first and holds every replica but r5, which needs two GPUs
// in one rack: six tries are spent there before zone y, which holds the
// whole job, is reached.
TEST(TopologyPlacementTest, AWalkGivesUpAfterItsDomainTries) {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {});
  for (int i = 0; i < 7; ++i)
    b.AddNode(GpuNode("x" + std::to_string(i), 1, kL40sMib,
                      {{"zone", "x"}, {"rack", "x" + std::to_string(i)}}));
  for (int i = 0; i < 6; ++i)
    b.AddNode(GpuNode("y" + std::to_string(i), 2, kL40sMib,
                      {{"zone", "y"}, {"rack", "y" + std::to_string(i)}}));
  GroupSpec group{.name = "job", .queue = "team", .min_member = 7, .required_topology = "zone"};
  for (int i = 0; i < 6; ++i) {
    const std::string leaf = "r" + std::to_string(i);
    const int pods = i == 5 ? 2 : 1;
    group.subgroups.push_back({leaf, pods});
    group.subgroup_topology[leaf] = {.required = "rack"};
    for (int p = 0; p < pods; ++p)
      b.AddPod({.name = leaf + "-" + std::to_string(p),
                .group = "job",
                .subgroup = leaf,
                .whole_gpus = 1,
                .creation_time = i});
  }
  b.AddGroup(group);
  Snapshot s = MustBuild(b);
  EXPECT_EQ(RunCycle(s).binds.size(), 7u) << "with tries enough, zone y takes the job";
  Options few;
  few.topology_max_domain_tries = 5;
  Decisions d = RunCycle(s, few);
  EXPECT_TRUE(d.binds.empty()) << "five tries are spent in zone x";
  EXPECT_NE(ReasonOf(d, s, "r0-0").find("within one zone domain"), std::string::npos)
      << ReasonOf(d, s, "r0-0");
}

}  // namespace
}  // namespace vtenant::sched

// Universe: working snapshots hold exactly the present pods, in universe
// order, with the running state the caller gives, and map back to universe ids.
#include "scheduler-core/universe.h"

#include <gtest/gtest.h>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

Universe MustCreate(const SnapshotBuilder& b) {
  Result<Universe> u = Universe::Create(b);
  EXPECT_TRUE(u.ok()) << u.status().ToString();
  return std::move(u).value();
}

SnapshotBuilder World() {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {{"n0", 2}});
  b.AddGroup({.name = "gang", .queue = "team", .min_member = 2});
  for (const char* name : {"a", "b"}) {
    PodSpec p = WholeGpuPod(name, "team", 1);
    p.group = "gang";
    b.AddPod(p);
  }
  b.AddPod(FractionPod("c", "team", 500));
  return b;
}

TEST(UniverseTest, EveryPodStartsPendingWhateverTheBuilderSaid) {
  SnapshotBuilder b = World();
  b.AddPod(Running(WholeGpuPod("d", "team", 1), "n0", {0}));
  Universe u = MustCreate(b);
  for (const Pod& p : u.universe().pods) EXPECT_EQ(p.phase, PodPhase::kPending) << p.name;
}

TEST(UniverseTest, WorkingHoldsThePresentPodsInUniverseOrder) {
  Universe u = MustCreate(World());
  // c is listed first but comes last, as in the universe.
  const Snapshot& s = u.Working(7, {{.pod = 2}, {.pod = 0}});
  EXPECT_EQ(s.now, 7);
  ASSERT_EQ(s.pods.size(), 2u);
  EXPECT_EQ(s.pods[0].name, "a");
  EXPECT_EQ(s.pods[1].name, "c");
  EXPECT_EQ(u.UniversePod(0), 0u);
  EXPECT_EQ(u.UniversePod(1), 2u);
  // Only the groups of present pods, renumbered densely.
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[s.pods[0].group].name, "gang");
  EXPECT_EQ(s.groups[s.pods[0].group].pods.size(), 1u);
  EXPECT_TRUE(Validate(s).ok());
}

TEST(UniverseTest, RunningStateComesFromTheCaller) {
  Universe u = MustCreate(World());
  Allocation on_device_1{.node = 0, .device_mask = 0b10, .portion = 1000};
  const Snapshot& s = u.Working(
      0, {{.pod = 0, .running = true, .allocation = on_device_1, .start_time = 3}, {.pod = 1}});
  EXPECT_EQ(s.pods[0].phase, PodPhase::kRunning);
  EXPECT_EQ(s.pods[0].allocation, on_device_1);
  EXPECT_EQ(s.pods[0].start_time, 3);
  EXPECT_EQ(s.pods[1].phase, PodPhase::kPending);
  // The gang's second pod fits on the free device.
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(u.UniversePod(d.binds[0].pod), 1u);
  EXPECT_EQ(d.binds[0].allocation.device_mask, 0b01u);
}

TEST(UniverseTest, AnEarlierCyclesPodsDoNotLeakIntoTheNext) {
  Universe u = MustCreate(World());
  u.Working(0, {{.pod = 0}, {.pod = 1}, {.pod = 2}});
  const Snapshot& s = u.Working(1, {{.pod = 1}});
  ASSERT_EQ(s.pods.size(), 1u);
  EXPECT_EQ(s.pods[0].name, "b");
  EXPECT_EQ(s.groups.size(), 1u);
}

TEST(UniverseTest, ABadObjectIsReportedAsTheBuilderReportsIt) {
  SnapshotBuilder b = World();
  b.AddPod(FractionPod("bad", "nowhere", 500));
  Result<Universe> u = Universe::Create(b);
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.status().message().find("bad"), std::string::npos) << u.status().ToString();
}

// The same world set object by object into an empty universe.
Universe SetOneByOne() {
  Universe u;
  EXPECT_TRUE(u.SetQueue(GpuQueue("team", "", kUnlimited)).ok());
  EXPECT_TRUE(u.SetNode(GpuNode("n0", 2)).ok());
  EXPECT_TRUE(u.SetGroup({.name = "gang", .queue = "team", .min_member = 2}).ok());
  for (const char* name : {"a", "b"}) {
    PodSpec p = WholeGpuPod(name, "team", 1);
    p.group = "gang";
    EXPECT_TRUE(u.SetPod(p).ok());
  }
  EXPECT_TRUE(u.SetPod(FractionPod("c", "team", 500)).ok());
  return u;
}

std::vector<PresentPod> AllPending(const Universe& u) {
  std::vector<PresentPod> present;
  for (PodId p = 0; p < u.universe().pods.size(); ++p)
    if (!u.universe().pods[p].name.empty()) present.push_back({.pod = p});
  return present;
}

std::vector<std::pair<std::string, std::string>> BindsOf(const Snapshot& s, const Decisions& d) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Bind& b : d.binds)
    out.emplace_back(s.pods[b.pod].name, s.nodes[b.allocation.node].name + "/" +
                                             std::to_string(b.allocation.device_mask));
  return out;
}

TEST(UniverseTest, ObjectsSetOneByOneDecideAsTheBuiltUniverse) {
  Universe built = MustCreate(World());
  Universe set = SetOneByOne();
  const Snapshot& a = built.Working(5, AllPending(built));
  Decisions da = RunCycle(a);
  const Snapshot& b = set.Working(5, AllPending(set));
  ASSERT_TRUE(Validate(b).ok()) << Validate(b).ToString();
  Decisions db = RunCycle(b);
  EXPECT_EQ(BindsOf(a, da), BindsOf(b, db));
  EXPECT_EQ(a.num_shapes, b.num_shapes);
  EXPECT_EQ(b.groups.size(), 2u);  // gang, and c's own group
}

TEST(UniverseTest, SettingAnObjectAgainReplacesItUnderTheSameId) {
  Universe u = SetOneByOne();
  const PodId c = u.FindPod("c");
  Result<PodId> again = u.SetPod(FractionPod("c", "team", 250));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, c);
  Result<NodeId> n0 = u.SetNode(GpuNode("n0", 4));
  ASSERT_TRUE(n0.ok());
  EXPECT_EQ(*n0, u.FindNode("n0"));
  const Snapshot& s = u.Working(0, {{.pod = c}});
  ASSERT_EQ(s.pods.size(), 1u);
  EXPECT_EQ(s.pods[0].request.gpu_fraction, 250);
  ASSERT_EQ(s.nodes.size(), 1u);
  EXPECT_EQ(s.nodes[0].num_devices, 4);
  EXPECT_EQ(s.devices.size(), 4u);
  EXPECT_TRUE(Validate(s).ok()) << Validate(s).ToString();
}

TEST(UniverseTest, RemovedNodesLeaveTheWorkingSnapshotWhoseIdsStayDense) {
  Universe u = SetOneByOne();
  ASSERT_TRUE(u.SetNode(GpuNode("n1", 1)).ok());
  const NodeId n1 = u.FindNode("n1");
  ASSERT_TRUE(u.RemoveNode("n0").ok());
  EXPECT_EQ(u.FindNode("n0"), kNone);
  // b runs on n1 (a universe id); the working snapshot has n1 as node 0.
  Allocation on_n1{.node = n1, .device_mask = 0b1, .portion = 1000};
  const Snapshot& s = u.Working(0, {{.pod = u.FindPod("b"), .running = true, .allocation = on_n1}});
  ASSERT_EQ(s.nodes.size(), 1u);
  EXPECT_EQ(s.nodes[0].name, "n1");
  EXPECT_EQ(s.nodes[0].first_device, 0u);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].node, 0u);
  EXPECT_EQ(s.pods[0].allocation.node, 0u);
  EXPECT_TRUE(Validate(s).ok()) << Validate(s).ToString();
}

TEST(UniverseTest, WhatOthersReferToCannotBeRemoved) {
  Universe u = SetOneByOne();
  ASSERT_TRUE(u.SetQueue(GpuQueue("child", "team", 0)).ok());
  EXPECT_EQ(u.RemoveQueue("team").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(u.RemoveGroup("gang").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(u.RemovePod("nobody").code(), StatusCode::kNotFound);
  ASSERT_TRUE(u.RemovePod("a").ok());
  ASSERT_TRUE(u.RemovePod("b").ok());
  ASSERT_TRUE(u.RemoveGroup("gang").ok());
  ASSERT_TRUE(u.RemoveQueue("child").ok());
  // c's own group still holds the queue; it goes with c.
  EXPECT_EQ(u.RemoveQueue("team").code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(u.RemovePod("c").ok());
  EXPECT_TRUE(u.RemoveQueue("team").ok());
  const Snapshot& s = u.Working(0, {});
  EXPECT_TRUE(s.queues.empty());
  EXPECT_TRUE(s.pods.empty());
}

TEST(UniverseTest, RemovedIdsAreReusedLowestFirst) {
  Universe u = SetOneByOne();
  const PodId a = u.FindPod("a");
  ASSERT_TRUE(u.RemovePod("a").ok());
  EXPECT_TRUE(u.universe().pods[a].name.empty());  // a tombstone
  Result<PodId> d = u.SetPod(WholeGpuPod("d", "team", 1));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, a);
  // d's own group reuses no pod id, and the working snapshot holds d.
  const Snapshot& s = u.Working(0, AllPending(u));
  ASSERT_EQ(s.pods.size(), 3u);
  EXPECT_EQ(s.pods[0].name, "d");
  EXPECT_TRUE(Validate(s).ok()) << Validate(s).ToString();
}

TEST(UniverseTest, PodsOfOneShapeShareItAndAFreedShapeIsReused) {
  Universe u = SetOneByOne();
  const Snapshot& before = u.Working(0, AllPending(u));
  const int32_t shapes = before.num_shapes;
  ASSERT_TRUE(u.SetPod(FractionPod("c2", "team", 500)).ok());
  const Snapshot& s = u.Working(0, AllPending(u));
  EXPECT_EQ(s.num_shapes, shapes);
  EXPECT_EQ(s.pods[PodNamed(s, "c")].shape, s.pods[PodNamed(s, "c2")].shape);
  EXPECT_NE(s.pods[PodNamed(s, "a")].shape, s.pods[PodNamed(s, "c")].shape);
  // Both fraction pods leave: their shape's id goes to the next new shape.
  ASSERT_TRUE(u.RemovePod("c").ok());
  ASSERT_TRUE(u.RemovePod("c2").ok());
  ASSERT_TRUE(u.SetPod(MemoryPod("m", "team", 4000)).ok());
  const Snapshot& t = u.Working(0, AllPending(u));
  EXPECT_EQ(t.num_shapes, shapes);
  EXPECT_LT(t.pods[PodNamed(t, "m")].shape, static_cast<ShapeId>(shapes));
}

TEST(UniverseTest, ABadSetChangesNothing) {
  Universe u = SetOneByOne();
  PodSpec stray = WholeGpuPod("stray", "team", 1);
  stray.group = "nowhere";
  Result<PodId> p = u.SetPod(stray);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("nowhere"), std::string::npos) << p.status().ToString();
  EXPECT_EQ(u.FindPod("stray"), kNone);
  PodSpec bad = FractionPod("c", "team", 1500);
  EXPECT_FALSE(u.SetPod(bad).ok());
  ASSERT_TRUE(u.SetQueue(GpuQueue("top", "", 0)).ok());
  ASSERT_TRUE(u.SetQueue(GpuQueue("mid", "top", 0)).ok());
  Result<QueueId> cycle = u.SetQueue(GpuQueue("top", "mid", 0));
  ASSERT_FALSE(cycle.ok());
  EXPECT_NE(cycle.status().message().find("cycle"), std::string::npos);
  const Snapshot& s = u.Working(0, AllPending(u));
  EXPECT_EQ(s.pods[PodNamed(s, "c")].request.gpu_fraction, 500);
  EXPECT_EQ(s.queues[QueueNamed(s, "top")].parent, kNone);
  EXPECT_TRUE(Validate(s).ok()) << Validate(s).ToString();
}

TEST(UniverseTest, APodMovingBetweenItsOwnGroupAndAPodGroupKeepsCountsRight) {
  Universe u = SetOneByOne();
  PodSpec c = FractionPod("c", "team", 500);
  c.group = "gang";
  ASSERT_TRUE(u.SetPod(c).ok());
  const Snapshot& s = u.Working(0, AllPending(u));
  EXPECT_EQ(s.groups.size(), 1u);  // c's own group is gone
  EXPECT_EQ(s.groups[0].pods.size(), 3u);
  c.group.clear();
  ASSERT_TRUE(u.SetPod(c).ok());
  ASSERT_TRUE(u.RemovePod("a").ok());
  ASSERT_TRUE(u.RemovePod("b").ok());
  EXPECT_TRUE(u.RemoveGroup("gang").ok());
}

}  // namespace
}  // namespace vtenant::sched

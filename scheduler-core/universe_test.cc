// Universe: working snapshots hold exactly the present pods, in universe
// order, with the running state the caller gives, and map back to universe ids.
#include "scheduler-core/universe.h"

#include <gtest/gtest.h>

#include "scheduler-core/test_support.h"

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

}  // namespace
}  // namespace vtenant::sched

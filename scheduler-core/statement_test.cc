// Rolling back a statement restores the cluster state exactly.
#include "scheduler-core/statement.h"

#include <gtest/gtest.h>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

// Everything ClusterState derives, flattened for comparison.
std::vector<int64_t> Fingerprint(const ClusterState& st) {
  const Snapshot& s = st.snapshot();
  std::vector<int64_t> out;
  for (NodeId n = 0; n < s.nodes.size(); ++n) {
    const NodeFree& f = st.Free(n);
    out.insert(out.end(), {f.cpu_milli, f.memory_bytes, f.pods, f.gpu});
  }
  for (DeviceId d = 0; d < s.devices.size(); ++d)
    out.insert(out.end(), {st.DeviceUsed(d), st.DeviceWhole(d)});
  for (QueueId q = 0; q < s.queues.size(); ++q)
    for (Resource r : kAllResources) out.push_back(st.QueueAllocated(q)[r]);
  for (GroupId g = 0; g < s.groups.size(); ++g) out.push_back(st.GroupPlaced(g));
  for (PodId p = 0; p < s.pods.size(); ++p) out.push_back(st.IsPlaced(p));
  for (const auto& [free, node] : st.ByFreeGpu()) out.insert(out.end(), {free, node});
  for (const auto& [free, device] : st.SharedDevices()) out.insert(out.end(), {free, device});
  return out;
}

TEST(StatementTest, RollbackRestoresEverythingInReverse) {
  SnapshotBuilder b = Cluster({{"org", kUnlimited}}, {{"a", 2}, {"b", 2}});
  b.AddQueue(GpuQueue("team", "org", kUnlimited));
  b.AddPod(Running(WholeGpuPod("running", "team", 1), "a", {0}));
  b.AddPod(FractionPod("f1", "team", 300));
  b.AddPod(FractionPod("f2", "team", 300));
  Snapshot s = MustBuild(b);
  ClusterState state(s);
  Statement st(state);
  const std::vector<int64_t> before = Fingerprint(state);

  Statement::Checkpoint mark = st.Mark();
  st.Place(PodNamed(s, "f1"), {1, 0b01, 300});
  const std::vector<int64_t> after_one = Fingerprint(state);
  Statement::Checkpoint inner = st.Mark();
  st.Place(PodNamed(s, "f2"), {1, 0b01, 300});
  st.Evict(PodNamed(s, "running"), EvictionCause::kReclaim, kNone);
  EXPECT_NE(Fingerprint(state), after_one);
  EXPECT_TRUE(st.EvictedSince(inner));

  st.Rollback(inner);
  EXPECT_EQ(Fingerprint(state), after_one);
  EXPECT_FALSE(st.EvictedSince(inner));
  st.Rollback(mark);
  EXPECT_EQ(Fingerprint(state), before);
  EXPECT_TRUE(st.journal().empty());
}

TEST(StatementTest, PlacementsMoveTheFreeGpuIndex) {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {{"a", 2}});
  b.AddPod(FractionPod("f", "team", 250));
  Snapshot s = MustBuild(b);
  ClusterState state(s);
  Statement st(state);
  st.Place(PodNamed(s, "f"), {0, 0b10, 250});
  ASSERT_EQ(state.ByFreeGpu().size(), 1u);
  EXPECT_EQ(state.ByFreeGpu().begin()->first, 1750);
  EXPECT_EQ(state.QueueAllocated(0)[kGpu], 250);
  // The started device is offered to the next fraction; after the eviction
  // neither index remembers the pod.
  ASSERT_EQ(state.SharedDevices().size(), 1u);
  EXPECT_EQ(state.SharedDevices().begin()->first, 750);
  st.Evict(PodNamed(s, "f"), EvictionCause::kPreempt, kNone);
  EXPECT_TRUE(state.SharedDevices().empty());
  EXPECT_EQ(state.ByFreeGpu().begin()->first, 2000);
}

TEST(StatementTest, ATrialLiftFreesTheNodeAloneAndPutsBackExactly) {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {{"a", 2}});
  b.AddPod(Running(WholeGpuPod("running", "team", 1), "a", {0}));
  Snapshot s = MustBuild(b);
  ClusterState state(s);
  const std::vector<int64_t> before = Fingerprint(state);
  const PodId pod = PodNamed(s, "running");

  state.LiftForTrial(pod);
  EXPECT_EQ(state.Free(0).gpu, 2000);
  EXPECT_EQ(state.GpuRoom(0), 2000);
  EXPECT_EQ(state.DeviceUsed(0), 0);
  EXPECT_FALSE(state.DeviceWhole(0));
  // Only the node changed: the pod is still placed and counted.
  EXPECT_TRUE(state.IsPlaced(pod));
  EXPECT_EQ(state.QueueAllocated(0)[kGpu], 1000);
  state.PutBackAfterTrial(pod);
  EXPECT_EQ(Fingerprint(state), before);
  EXPECT_TRUE(state.ChangeLog().empty());
}

}  // namespace
}  // namespace vtenant::sched

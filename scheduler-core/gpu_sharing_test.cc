// GPU sharing rules: fractions and memory on one device, whole GPUs apart,
// several devices, MIG, and the seed scenarios of the KAI tutorials.
#include <gtest/gtest.h>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

TEST(GpuSharingTest, FiveHalfGpuPodsOnTwoGpusPlaceFourAndExplainTheFifth) {
  // Both layouts of "two GPUs": one node with two, or two nodes with one.
  for (int nodes : {1, 2}) {
    SnapshotBuilder b = OneQueue();
    for (int n = 0; n < nodes; ++n) b.AddNode(GpuNode("node-" + std::to_string(n), 2 / nodes));
    for (int i = 1; i <= 5; ++i)
      b.AddPod(FractionPod("gpu-sharing-pod-" + std::to_string(i), "test", 500));
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    EXPECT_EQ(d.binds.size(), 4u) << nodes << " node(s)";
    ASSERT_EQ(d.pending.size(), 1u);
    EXPECT_EQ(s.pods[d.pending[0].pod].name, "gpu-sharing-pod-5");
    EXPECT_EQ(d.ReasonOf(d.pending[0]), "0/" + std::to_string(nodes) +
                                            " nodes fit: " + std::to_string(nodes) +
                                            " no GPU device with the requested portion free (needs "
                                            "500m of one device)");
    EXPECT_EQ(ReportOf(d, s, "test").allocated[kGpu], 2000);
    for (const Bind& bind : d.binds) EXPECT_EQ(bind.allocation.portion, 500);
  }
}

TEST(GpuSharingTest, ThreeMemoryPodsBesideAHalfGpuPodShareOneL40S) {
  SnapshotBuilder b = OneQueue();
  b.AddNode(GpuNode("l40s", 1));
  b.AddPod(FractionPod("gpu-sharing-pod-1", "test", 500));
  for (int i = 1; i <= 3; ++i)
    b.AddPod(MemoryPod("gpu-sharing-mem-" + std::to_string(i), "test", 4000));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.binds.size(), 4u);
  EXPECT_TRUE(d.pending.empty());
  for (const Bind& bind : d.binds) {
    EXPECT_EQ(bind.allocation.device_mask, 1u);
    // 4000 MiB of 46068 MiB is 86.8m, rounded up so memory is never overcommitted.
    EXPECT_EQ(bind.allocation.portion, s.pods[bind.pod].request.gpu_fraction > 0 ? 500 : 87);
  }
  EXPECT_EQ(ReportOf(d, s, "test").allocated[kGpu], 500 + 3 * 87);
}

struct DeviceCase {
  std::string name;
  std::vector<PodSpec> running;
  PodSpec pending;
  bool fits;
  std::string reason_part;
};

TEST(GpuSharingTest, DeviceRules) {
  auto half_by_memory = MemoryPod("pending", "test", kL40sMib / 2);  // exactly 500m
  const DeviceCase cases[] = {
      {"fraction and memory share one device up to exactly full",
       {Running(FractionPod("r", "test", 500), "n", {0})},
       half_by_memory,
       true,
       ""},
      {"one MiB more than a device has left does not fit",
       {Running(FractionPod("r", "test", 500), "n", {0}),
        Running(MemoryPod("r2", "test", kL40sMib / 2), "n", {0})},
       MemoryPod("pending", "test", 1),
       false,
       "needs 1 MiB of one device"},
      {"whole GPU never joins a device used by a fraction",
       {Running(FractionPod("r", "test", 100), "n", {0})},
       WholeGpuPod("pending", "test", 1),
       false,
       "not enough idle whole GPUs (needs 1 on one node)"},
      {"more GPUs than any node has: said so, as KAI's max-node-resources check does",
       {},
       WholeGpuPod("pending", "test", 2),
       false,
       "(needs 2 on one node); no node is that large: the most GPUs on one node is 1"},
      {"a share of more devices than any node has",
       {},
       [] {
         PodSpec p = FractionPod("pending", "test", 500);
         p.num_devices = 2;
         return p;
       }(),
       false,
       "no node is that large: the most GPUs on one node is 1"},
      {"fraction never joins a device held whole",
       {Running(WholeGpuPod("r", "test", 1), "n", {0})},
       FractionPod("pending", "test", 100),
       false,
       "no GPU device with the requested portion free"},
      {"memory request larger than the device",
       {},
       MemoryPod("pending", "test", kL40sMib + 1),
       false,
       "GPU devices have less memory than requested"},
  };
  for (const DeviceCase& c : cases) {
    SnapshotBuilder b = OneQueue();
    b.AddNode(GpuNode("n", 1));
    for (const PodSpec& r : c.running) b.AddPod(r);
    b.AddPod(c.pending);
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    EXPECT_EQ(BindOf(d, s, "pending") != nullptr, c.fits) << c.name;
    if (!c.fits) {
      EXPECT_NE(ReasonOf(d, s, "pending").find(c.reason_part), std::string::npos)
          << c.name << ": " << ReasonOf(d, s, "pending");
    }
  }
}

TEST(GpuSharingTest, MultiDeviceFractionTakesThatShareOfEachDevice) {
  SnapshotBuilder b = OneQueue();
  b.AddNode(GpuNode("n", 4));
  b.AddPod(Running(FractionPod("busy", "test", 700), "n", {1}));
  PodSpec multi = FractionPod("multi", "test", 500);
  multi.num_devices = 3;
  b.AddPod(multi);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  const Bind* bind = BindOf(d, s, "multi");
  ASSERT_NE(bind, nullptr);
  EXPECT_EQ(bind->allocation.portion, 500);
  EXPECT_EQ(DeviceIndices(bind->allocation), (std::vector<int>{0, 2, 3}));  // device 1 lacks 500m
  EXPECT_EQ(ReportOf(d, s, "test").allocated[kGpu], 700 + 1500);
}

TEST(GpuSharingTest, MultiDeviceFractionNeedsAllDevicesOnOneNode) {
  SnapshotBuilder b = OneQueue();
  b.AddNode(GpuNode("a", 1));
  b.AddNode(GpuNode("b", 1));
  b.AddPod({.name = "multi", .queue = "test", .gpu_fraction = 500, .num_devices = 2});
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(BindOf(d, s, "multi"), nullptr);
  EXPECT_NE(ReasonOf(d, s, "multi").find("needs 500m of 2 devices each"), std::string::npos)
      << ReasonOf(d, s, "multi");
}

TEST(GpuSharingTest, MigMixedStrategyCountsInstancesPerProfile) {
  SnapshotBuilder b = OneQueue();
  NodeSpec node = GpuNode("a100", 0);
  node.mig = {{"1g.5gb", 7}, {"3g.20gb", 1}};
  b.AddNode(node);
  for (int i = 0; i < 4; ++i)
    b.AddPod({.name = "mig-" + std::to_string(i),
              .queue = "test",
              .mig_profile = "1g.5gb",
              .mig_count = 2});
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(d.binds.size(), 3u);
  EXPECT_NE(ReasonOf(d, s, "mig-3").find("not enough free MIG instances"), std::string::npos)
      << ReasonOf(d, s, "mig-3");
  // 1g of 7 is 143m; six instances placed.
  EXPECT_EQ(ReportOf(d, s, "test").allocated[kGpu], 6 * 143);
}

TEST(GpuSharingTest, MigSingleStrategySlicesAreDevicesWithTheirOwnMemory) {
  // Single strategy: an A100 cut in seven 1g.5gb slices shows as seven
  // nvidia.com/gpu of 4864 MiB each.
  SnapshotBuilder b = OneQueue();
  b.AddNode(GpuNode("a100-mig", 7, 4864));
  b.AddPod(MemoryPod("small", "test", 4000));
  b.AddPod(MemoryPod("too-big", "test", 5000));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_NE(BindOf(d, s, "small"), nullptr);
  EXPECT_EQ(BindOf(d, s, "small")->allocation.portion, 823);  // ceil(4000000 / 4864)
  EXPECT_NE(ReasonOf(d, s, "too-big").find("less memory than requested"), std::string::npos);
}

TEST(GpuSharingTest, NodeSelectorsAndTaintsNarrowTheNodes) {
  SnapshotBuilder b = OneQueue();
  NodeSpec tainted = GpuNode("tainted", 1, kL40sMib, {{"pool", "a"}});
  tainted.taints = {{"dedicated", "ml", TaintEffect::kNoSchedule}};
  b.AddNode(tainted);
  b.AddNode(GpuNode("plain", 1, kL40sMib, {{"pool", "b"}}));
  PodSpec wants_a = WholeGpuPod("wants-a", "test", 1);
  wants_a.node_selector = {{"pool", "a"}};
  PodSpec wants_a_tolerating = wants_a;
  wants_a_tolerating.name = "wants-a-tolerating";
  wants_a_tolerating.tolerations = {{"dedicated", false, "ml", std::nullopt}};
  PodSpec wants_c = WholeGpuPod("wants-c", "test", 1);
  wants_c.node_selector = {{"pool", "c"}};
  b.AddPod(wants_a).AddPod(wants_a_tolerating).AddPod(wants_c);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(ReasonOf(d, s, "wants-a"),
            "0/2 nodes fit: 1 node selector or affinity does not match, 1 untolerated taint");
  EXPECT_EQ(NodeOf(d, s, "wants-a-tolerating"), "tainted");
  EXPECT_EQ(ReasonOf(d, s, "wants-c"), "0/2 nodes fit: 2 node selector or affinity does not match");
}

TEST(GpuSharingTest, NodeAffinityInPicksAmongModels) {
  SnapshotBuilder b = OneQueue();
  b.AddNode(GpuNode("t4", 1, 15109, {{"gpu_model", "T4"}}));
  b.AddNode(GpuNode("v100", 1, 32510, {{"gpu_model", "V100M32"}}));
  PodSpec either = WholeGpuPod("either", "test", 1);
  either.node_affinity_in = {{"gpu_model", {"V100M32", "V100M16"}}};
  PodSpec neither = either;
  neither.name = "neither";
  neither.node_affinity_in = {{"gpu_model", {"A100"}}};
  b.AddPod(either).AddPod(neither);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(NodeOf(d, s, "either"), "v100");
  EXPECT_EQ(ReasonOf(d, s, "neither"), "0/2 nodes fit: 2 node selector or affinity does not match");
}

TEST(GpuSharingTest, CpuAndMemoryOfTheNodeAreRespected) {
  SnapshotBuilder b = OneQueue();
  NodeSpec small = GpuNode("small", 1);
  small.cpu_milli = 1000;
  b.AddNode(small);
  PodSpec hungry = FractionPod("hungry", "test", 100);
  hungry.cpu_milli = 2000;
  b.AddPod(hungry);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(ReasonOf(d, s, "hungry"),
            "0/1 nodes fit: 1 insufficient cpu (needs 2000m); no node is that large: the most "
            "cpu on one node is 1000m");
}

}  // namespace
}  // namespace vtenant::sched

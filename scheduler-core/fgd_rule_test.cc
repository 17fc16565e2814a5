// fgd: a node's fragmentation against the workload, and where the rule
// puts pods because of it.
#include "scheduler-core/fgd_rule.h"

#include <gtest/gtest.h>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

// The fragmentation fgd measures on node 0 of `b`'s cluster when the only
// shape it has seen is that of pending pod "w".
double NodeZeroFragmentationAgainstW(const SnapshotBuilder& b) {
  Snapshot s = MustBuild(b);
  ClusterState state(s);
  auto model = std::make_shared<WorkloadModel>();
  model->Observe(s, PodNamed(s, "w"));
  return FgdRule(state, model).NodeFragmentation(0);
}

TEST(FgdRuleTest, FragmentationIsTheFreeGpuTheWorkloadCannotUse) {
  struct Case {
    std::string name;
    PodSpec shape;  // the whole workload: pending pods of this one shape
    Milli expected;
  };
  PodSpec other_model = WholeGpuPod("w", "test", 1);
  other_model.node_affinity_in = {{"nvidia.com/gpu.product", {"NVIDIA-H100"}}};
  PodSpec cpu_heavy = FractionPod("w", "test", 500);
  cpu_heavy.cpu_milli = 60000;
  const Case cases[] = {
      {"whole GPUs cannot use the 500m left on a started device", WholeGpuPod("w", "test", 1), 500},
      {"halves can use everything", FractionPod("w", "test", 500), 0},
      {"0.6 fractions cannot use the 500m", FractionPod("w", "test", 600), 500},
      {"two-GPU pods need two empty devices: only one is", WholeGpuPod("w", "test", 2), 1500},
      {"a shape short of CPU can use nothing", cpu_heavy, 1500},
      {"a shape for another GPU model can use nothing", other_model, 1500},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b = OneQueue();
    NodeSpec n = GpuNode("n", 2);
    n.labels = {{"nvidia.com/gpu.product", "NVIDIA-L40S"}};
    n.cpu_milli = 32000;
    b.AddNode(n);
    PodSpec busy = Running(FractionPod("busy", "test", 500), "n", {0});
    busy.cpu_milli = 8000;
    b.AddPod(busy);
    b.AddPod(c.shape);
    EXPECT_DOUBLE_EQ(NodeZeroFragmentationAgainstW(b), double(c.expected)) << c.name;
  }
}

TEST(FgdRuleTest, FragmentationFollowsWhatTheModelLearnsAfterTheRuleIsMade) {
  // Halves can use the 500m left on the started device; once the model
  // has seen mostly whole-GPU pods, that 500m is stranded.
  SnapshotBuilder b = OneQueue();
  b.AddNode(GpuNode("n", 2));
  b.AddPod(Running(FractionPod("busy", "test", 500), "n", {0}));
  b.AddPod(FractionPod("half", "test", 500));
  b.AddPod(WholeGpuPod("whole", "test", 1));
  Snapshot s = MustBuild(b);
  ClusterState state(s);
  auto model = std::make_shared<WorkloadModel>(/*half_life_pods=*/1e18);
  model->Observe(s, PodNamed(s, "half"));
  FgdRule rule(state, model);
  EXPECT_DOUBLE_EQ(rule.NodeFragmentation(0), 0.0);
  model->Observe(s, PodNamed(s, "whole"), 1000);
  EXPECT_GT(rule.NodeFragmentation(0), 400.0);
}

TEST(FgdRuleTest, ShapesCountOnlyTheTaintedNodesTheyTolerate) {
  struct Case {
    std::string name;
    std::vector<TolerationSpec> tolerations;  // of the workload's one shape
    Milli expected;                           // fragmentation of the tainted node
  };
  const Case cases[] = {
      {"no toleration: none of the tainted node's GPU is usable", {}, 2000},
      {"tolerates the taint's key and value", {{"team", false, "vision", {}}}, 0},
      {"tolerates every value of the key", {{"team", true, "", {}}}, 0},
      {"another value does not tolerate it", {{"team", false, "nlp", {}}}, 2000},
      {"a key nobody uses does not tolerate it", {{"zone", true, "", {}}}, 2000},
      {"tolerates only NoExecute: the taint is NoSchedule",
       {{"team", true, "", TaintEffect::kNoExecute}},
       2000},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b = OneQueue();
    NodeSpec n = GpuNode("tainted", 2);
    n.taints = {{"team", "vision", TaintEffect::kNoSchedule}};
    b.AddNode(n);
    PodSpec w = WholeGpuPod("w", "test", 1);
    w.tolerations = c.tolerations;
    b.AddPod(w);
    EXPECT_DOUBLE_EQ(NodeZeroFragmentationAgainstW(b), double(c.expected)) << c.name;
  }
}

TEST(FgdRuleTest, PlacesWhereFragmentationGrowsLeast) {
  struct Case {
    std::string name;
    std::vector<PodSpec> running;
    std::vector<PodSpec> workload;  // pending pods that teach the model, placed after
    PodSpec pod;
    std::string node;
    int device;  // -1: any
  };
  PodSpec cpu_pod = {.name = "p", .queue = "test", .cpu_milli = 40000};
  PodSpec gpu_cpu = WholeGpuPod("w", "test", 1);
  gpu_cpu.cpu_milli = 30000;
  const Case cases[] = {
      {"a half completes the started device rather than opening an empty one",
       {Running(FractionPod("r", "test", 500), "b", {1})},
       {WholeGpuPod("w", "test", 1)},
       FractionPod("p", "test", 500),
       "b",
       1},
      {"a CPU-only pod goes where it blocks no GPU pod: the node whose GPUs are taken",
       {Running(WholeGpuPod("r0", "test", 1), "a", {0}),
        Running(WholeGpuPod("r1", "test", 1), "a", {1})},
       {gpu_cpu},
       cpu_pod,
       "a",
       -1},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b = OneQueue();
    for (const char* name : {"a", "b"}) {
      NodeSpec n = GpuNode(name, 2);
      n.cpu_milli = 64000;
      b.AddNode(n);
    }
    for (const PodSpec& p : c.running) b.AddPod(p);
    PodSpec pod = c.pod;
    pod.priority = 10;  // placed before the workload's pods
    b.AddPod(pod);
    Snapshot s = MustBuild(b);
    auto model = std::make_shared<WorkloadModel>();
    // What the cluster has seen: the workload's shape, many times.
    SnapshotBuilder teach = OneQueue();
    teach.AddNode(GpuNode("x", 1));
    for (int i = 0; i < 10; ++i) {
      PodSpec w = c.workload[0];
      w.name = "w" + std::to_string(i);
      teach.AddPod(w);
    }
    Snapshot taught = MustBuild(teach);
    for (PodId p = 0; p < taught.pods.size(); ++p) model->Observe(taught, p);
    Options o;
    o.policy = PlacementPolicy::kFgd;
    o.workload = model;
    Decisions d = RunCycle(s, o);
    const Bind* bind = BindOf(d, s, "p");
    ASSERT_NE(bind, nullptr) << c.name;
    EXPECT_EQ(s.nodes[bind->allocation.node].name, c.node) << c.name;
    if (c.device >= 0) {
      EXPECT_EQ(DeviceIndices(bind->allocation), std::vector<int>{c.device});
    }
  }
}

TEST(FgdRuleTest, WorkloadModelForgetsOldShapes) {
  SnapshotBuilder b = OneQueue();
  b.AddPod(FractionPod("old", "test", 500));
  b.AddPod(WholeGpuPod("new", "test", 1));
  Snapshot s = MustBuild(b);
  WorkloadModel model(/*half_life_pods=*/1);
  for (int i = 0; i < 3; ++i) model.Observe(s, PodNamed(s, "old"));
  model.Observe(s, PodNamed(s, "new"));
  // Weights 1, 2, 4 for the halves and 8 for the whole GPU: 8/15.
  std::vector<WorkloadModel::Entry> top = model.Top(10, 1.0);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].shape.whole_gpus, 1);
  EXPECT_NEAR(top[0].weight, 8.0 / 15.0, 1e-12);
}

TEST(FgdRuleTest, TopCanLeaveOutShapesWithoutGpu) {
  struct Case {
    std::string name;
    size_t max_shapes;
    bool gpu_only;
    std::vector<std::pair<int32_t, double>> expected;  // whole GPUs, weight
  };
  const Case cases[] = {
      {"CPU-only shapes take a place when counted", 2, false, {{0, 5.0 / 7.0}, {1, 2.0 / 7.0}}},
      {"without them both GPU shapes fit", 2, true, {{1, 2.0 / 3.0}, {2, 1.0 / 3.0}}},
      {"the cap still holds", 1, true, {{1, 1.0}}},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b = OneQueue();
    b.AddPod(PodSpec{.name = "cpu", .queue = "test", .cpu_milli = 4000});
    b.AddPod(WholeGpuPod("one", "test", 1));
    b.AddPod(WholeGpuPod("two", "test", 2));
    Snapshot s = MustBuild(b);
    WorkloadModel model(/*half_life_pods=*/1e18);
    model.Observe(s, PodNamed(s, "cpu"), 5);
    model.Observe(s, PodNamed(s, "one"), 2);
    model.Observe(s, PodNamed(s, "two"), 1);
    std::vector<WorkloadModel::Entry> top = model.Top(c.max_shapes, 1.0, c.gpu_only);
    ASSERT_EQ(top.size(), c.expected.size()) << c.name;
    for (size_t i = 0; i < top.size(); ++i) {
      EXPECT_EQ(top[i].shape.whole_gpus, c.expected[i].first) << c.name;
      EXPECT_NEAR(top[i].weight, c.expected[i].second, 1e-12) << c.name;
    }
  }
}

TEST(FgdRuleTest, ManyCpuOnlyShapesDoNotHideARareGpuShape) {
  struct Case {
    std::string name;
    int cpu_only_shapes;  // distinct CPU requests, each seen 100 times
  };
  // The rare whole-GPU shape cannot use the 500m left on the started
  // device, however many CPU-only shapes are heavier than it.
  const Case cases[] = {{"a few", 3}, {"more than the old cap of 64", 80}, {"200", 200}};
  for (const Case& c : cases) {
    SnapshotBuilder b = OneQueue();
    b.AddNode(GpuNode("n", 2));
    b.AddPod(Running(FractionPod("busy", "test", 500), "n", {0}));
    b.AddPod(WholeGpuPod("w", "test", 1));
    for (int i = 0; i < c.cpu_only_shapes; ++i)
      b.AddPod(PodSpec{.name = "cpu-" + std::to_string(i), .queue = "test", .cpu_milli = 100 + i});
    Snapshot s = MustBuild(b);
    ClusterState state(s);
    auto model = std::make_shared<WorkloadModel>(/*half_life_pods=*/1e18);
    for (int i = 0; i < c.cpu_only_shapes; ++i)
      model->Observe(s, PodNamed(s, "cpu-" + std::to_string(i)), 100);
    model->Observe(s, PodNamed(s, "w"));
    FgdRule rule(state, model);
    EXPECT_DOUBLE_EQ(rule.NodeFragmentation(0), 500.0) << c.name;
  }
}

}  // namespace
}  // namespace vtenant::sched

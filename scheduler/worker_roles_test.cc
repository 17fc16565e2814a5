#include "scheduler/worker_roles.h"

#include <gtest/gtest.h>

namespace vtenant::scheduler {
namespace {

sched::PodSpec GpuPod() {
  sched::PodSpec p;
  p.whole_gpus = 1;
  return p;
}

TEST(WorkerRolesTest, OffEveryNodeTakesEveryPod) {
  const WorkerRoles off;
  EXPECT_TRUE(off.Schedules({}));
  sched::NodeSpec node;
  node.gpus = 2;
  off.MarkNode(&node);
  EXPECT_TRUE(node.labels.empty());
  EXPECT_TRUE(node.gpus_in_capacity);
  sched::PodSpec pod = GpuPod();
  off.HoldPod(&pod);
  EXPECT_TRUE(pod.node_affinity_in.empty());
  EXPECT_EQ(off.RoleOf(pod), "");
  EXPECT_EQ(off.NoNodeReason(pod, false, false), "");
}

TEST(WorkerRolesTest, EachRoleMarksItsNodesAndHoldsItsPods) {
  const WorkerRoles on{.restrict = true, .gpu_label = "gpu", .cpu_label = "cpu"};
  EXPECT_FALSE(on.Schedules({{"zone", "a"}}));
  EXPECT_TRUE(on.Schedules({{"gpu", ""}}));
  EXPECT_TRUE(on.Schedules({{"cpu", "false"}})) << "any value marks the role";

  sched::NodeSpec both;
  both.labels = {{"gpu", "true"}, {"cpu", ""}};
  on.MarkNode(&both);
  EXPECT_EQ(both.labels,
            (sched::LabelPairs{
                {"gpu", "true"}, {"cpu", ""}, {kGpuWorkerRole, "true"}, {kCpuWorkerRole, "true"}}));
  EXPECT_TRUE(both.gpus_in_capacity);
  sched::NodeSpec cpu_only;
  cpu_only.labels = {{"cpu", ""}};
  on.MarkNode(&cpu_only);
  EXPECT_FALSE(cpu_only.gpus_in_capacity) << "a CPU worker's GPUs are no queue's share";

  // Any kind of GPU request is a GPU pod.
  sched::PodSpec fraction, memory, mig, plain;
  fraction.gpu_fraction = 500;
  memory.gpu_memory_mib = 4000;
  mig.mig_profile = "1g.5gb";
  mig.mig_count = 1;
  for (sched::PodSpec* pod : {&fraction, &memory, &mig}) {
    EXPECT_EQ(on.RoleOf(*pod), "gpu");
    on.HoldPod(pod);
    EXPECT_EQ(pod->node_affinity_in, (decltype(pod->node_affinity_in){{kGpuWorkerRole, {"true"}}}));
  }
  EXPECT_EQ(on.RoleOf(plain), "cpu");
  on.HoldPod(&plain);
  EXPECT_EQ(plain.node_affinity_in, (decltype(plain.node_affinity_in){{kCpuWorkerRole, {"true"}}}));

  EXPECT_EQ(on.NoNodeReason(GpuPod(), true, false), "");
  EXPECT_EQ(on.NoNodeReason(GpuPod(), false, true),
            "no node carries label gpu: with --restrict-node-scheduling, pods asking for a GPU go "
            "only to nodes that do");
  EXPECT_EQ(on.NoNodeReason(sched::PodSpec{}, true, false),
            "no node carries label cpu: with --restrict-node-scheduling, pods asking for no GPU go "
            "only to nodes that do");
}

}  // namespace
}  // namespace vtenant::scheduler

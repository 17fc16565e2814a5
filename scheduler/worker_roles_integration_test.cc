// Integration: KAI's --restrict-node-scheduling against a real API server,
// as KAI's own end-to-end suite states it ("Restrict node scheduling"):
// on a node labelled gpu-worker a GPU pod is scheduled and a CPU pod is
// not; on a node labelled cpu-worker the other way round. Here too: a node
// of neither role is left alone, and a pod whose role no node carries says
// so, and runs once a node takes the role. The tests run in order.
#include <gtest/gtest.h>

#include "base/eventually.h"
#include "localenv/testing/cluster_test.h"
#include "scheduler/kai_names.h"
#include "scheduler/testing/scheduler_cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler {
namespace {

using namespace testing;

class WorkerRolesTest : public SchedulerClusterTest {
 protected:
  static void SetUpTestSuite() {
    // Every node has a GPU free, so only the roles keep a pod off one. The
    // cpu node takes its role in the first test.
    StartWithNodes("sched-roles", R"(
nodes:
- {name: gpu, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {node-role.kubernetes.io/gpu-worker: "true"}}
- {name: cpu, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
- {name: plain, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
)",
                   {"ml"});
    if (HasFatalFailure()) return;
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("team", "", -1)).ok());
    SchedulerFlags flags;
    flags.restrict_node_scheduling = true;
    StartSuiteScheduler(flags);
  }

  // A pod of whole GPUs, or with none a pod that asks for no GPU.
  static Status Run(const std::string& name, int whole_gpus) {
    return client()
        .Create(res::kPods, "ml",
                PodManifest("ml", name, {.queue = "team", .whole_gpus = whole_gpus}))
        .status();
  }

  static std::string NodeOnceRunning(const std::string& name) {
    return testing::NodeOnceRunning(client(), "ml", name);
  }

  // The first message of an Unschedulable Event about ml/name, once one comes.
  static std::string WhyWaiting(const std::string& name) {
    std::vector<std::string> why;
    Eventually([&] {
      why = EventMessages(client(), "ml", name, "Unschedulable");
      return !why.empty();
    });
    return why.empty() ? "" : why.front();
  }

  static Status LabelNode(const std::string& node, const std::string& key) {
    return client()
        .Patch(res::kNodes, "", node, kube::PatchType::kMerge,
               R"({"metadata":{"labels":{")" + key + R"(":"true"}}})")
        .status();
  }
};

// The suite starts with no CPU worker.
TEST_F(WorkerRolesTest, APodOfARoleNoNodeHasWaitsSayingSoUntilOneDoes) {
  ASSERT_TRUE(Run("api", 0).ok());
  EXPECT_EQ(WhyWaiting("api"),
            "no node carries label node-role.kubernetes.io/cpu-worker: with "
            "--restrict-node-scheduling, pods asking for no GPU go only to nodes that do");
  Result<Object> api = client().Get(res::kPods, "ml", "api");
  ASSERT_TRUE(api.ok());
  EXPECT_EQ(kube::GetString(*api, {"spec", "nodeName"}), "");

  ASSERT_TRUE(LabelNode("cpu-0", kai::kCpuWorkerNodeLabel).ok());
  EXPECT_EQ(NodeOnceRunning("api"), "cpu-0");
}

TEST_F(WorkerRolesTest, GpuPodsGoToGpuWorkersAndOthersToCpuWorkers) {
  ASSERT_TRUE(Run("trainer", 1).ok());
  ASSERT_TRUE(Run("web", 0).ok());
  EXPECT_EQ(NodeOnceRunning("trainer"), "gpu-0");
  EXPECT_EQ(NodeOnceRunning("web"), "cpu-0");

  // The GPU worker is full. The CPU worker's GPU and the two of the node
  // of neither role are free, and none of them is this pod's.
  ASSERT_TRUE(Run("second", 1).ok());
  const std::string why = WhyWaiting("second");
  EXPECT_FALSE(why.empty());
  Result<Object> second = client().Get(res::kPods, "ml", "second");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(kube::GetString(*second, {"spec", "nodeName"}), "") << why;
}

}  // namespace
}  // namespace vtenant::scheduler

// Integration: KAI's scheduling shards against a real API server. A
// scheduler of --partition-label-value a100 takes only the nodes, Queues,
// PodGroups and pods labelled kai.scheduler/node-pool=a100: a pod of the
// pool runs on the pool's node and its PodGroup carries the pool; a pod of
// no pool is left for the default shard, neither bound nor reported; and
// the pool's pods see only the pool's nodes. The tests run in order.
#include <gtest/gtest.h>

#include "base/eventually.h"
#include "localenv/testing/cluster_test.h"
#include "scheduler/kai_names.h"
#include "scheduler/testing/scheduler_cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler {
namespace {

using namespace testing;

class NodePoolTest : public SchedulerClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartWithNodes("sched-pools", R"(
nodes:
- {name: a100, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {kai.scheduler/node-pool: a100}}
- {name: plain, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
)",
                   {"ml"});
    if (HasFatalFailure()) return;
    kube::Object queue = QueueManifest("team", "", -1);
    kube::SetString(queue, {"metadata", "labels"}, kai::kNodePoolLabel, "a100");
    ASSERT_TRUE(client().Create(res::kQueues, "", queue).ok());
    SchedulerFlags flags;
    flags.partition_label_value = "a100";
    StartSuiteScheduler(flags);
  }

  // A bare pod of whole GPUs in queue team, of pool a100 when `pooled`.
  static Status Run(const std::string& name, int whole_gpus, bool pooled) {
    kube::Object pod = PodManifest("ml", name, {.queue = "team", .whole_gpus = whole_gpus});
    if (pooled) kube::SetString(pod, {"metadata", "labels"}, kai::kNodePoolLabel, "a100");
    return client().Create(res::kPods, "ml", pod).status();
  }
};

TEST_F(NodePoolTest, APodOfThePoolRunsOnItsNodeAndItsGroupCarriesThePool) {
  ASSERT_TRUE(Run("trainer", 1, true).ok());
  EXPECT_EQ(NodeOnceRunning(client(), "ml", "trainer"), "a100-0");
  std::vector<std::string> scheduled;
  EXPECT_TRUE(Eventually([&] {
    scheduled = EventMessages(client(), "ml", "trainer", "Scheduled");
    return !scheduled.empty();
  }));
  ASSERT_FALSE(scheduled.empty());
  EXPECT_NE(scheduled.front().find("at node-pool a100"), std::string::npos) << scheduled.front();
  Result<Object> pod = client().Get(res::kPods, "ml", "trainer");
  ASSERT_TRUE(pod.ok());
  const std::string group(kube::Annotation(*pod, kPodGroupAnnotation).value_or(""));
  ASSERT_FALSE(group.empty());
  Result<Object> pg = client().Get(res::kPodGroups, "ml", group);
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  EXPECT_EQ(kube::Label(*pg, kai::kNodePoolLabel).value_or(""), "a100");
}

TEST_F(NodePoolTest, APodOfNoPoolIsLeftToTheDefaultShard) {
  ASSERT_TRUE(Run("stray", 1, false).ok());
  // A pod of the pool that cannot fit sees the pool's node alone.
  ASSERT_TRUE(Run("second", 1, true).ok());
  std::vector<std::string> why;
  ASSERT_TRUE(Eventually([&] {
    why = EventMessages(client(), "ml", "second", "Unschedulable");
    return !why.empty();
  }));
  EXPECT_NE(why.front().find("0/1 nodes fit"), std::string::npos) << why.front();
  // By then the stray pod has been through the same cycles: not bound, not
  // reported, not grouped.
  Result<Object> stray = client().Get(res::kPods, "ml", "stray");
  ASSERT_TRUE(stray.ok());
  EXPECT_EQ(kube::GetString(*stray, {"spec", "nodeName"}), "");
  EXPECT_EQ(kube::Annotation(*stray, kPodGroupAnnotation), std::nullopt);
  EXPECT_TRUE(EventMessages(client(), "ml", "stray", "Unschedulable").empty());
}

}  // namespace
}  // namespace vtenant::scheduler

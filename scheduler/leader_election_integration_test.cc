// Integration: two vtenant-scheduler replicas with --leader-elect; exactly
// one schedules, and when it stops the other takes over and schedules.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "base/eventually.h"
#include "localenv/testing/cluster_test.h"
#include "scheduler/testing/scheduler_cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler {
namespace {

using namespace testing;

class LeaderElectionTest : public SchedulerClusterTest {
 protected:
  static void SetUpTestSuite() {
    // This suite's own nodes; every scheduler suite starts its cluster alike
    // (testing/scheduler_cluster_test.h).
    StartWithNodes("sched-leader", R"(
nodes:
- {name: gpu, count: 1, cpu: 16, memory: 64Gi, gpus: 4, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
)",
                   {"work"});
    if (HasFatalFailure()) return;
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("team", "", -1)).ok());
  }
  static bool Bound(const std::string& name) {
    Result<kube::Object> p = client().Get(res::kPods, "work", name);
    return p.ok() && !kube::GetString(*p, {"spec", "nodeName"}).empty();
  }
};

TEST_F(LeaderElectionTest, OneReplicaSchedulesAndTheOtherTakesOver) {
  SchedulerFlags flags;
  flags.leader_elect = true;
  // Start blocks until a replica schedules, so start them side by side.
  std::mutex mu;
  std::unique_ptr<SchedulerApp> apps[2];
  auto started = [&] {
    std::lock_guard lock(mu);
    return int(apps[0] != nullptr) + int(apps[1] != nullptr);
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&, i] {
      Result<std::unique_ptr<SchedulerApp>> app =
          StartScheduler(client(), flags, "replica-" + std::to_string(i));
      std::lock_guard lock(mu);
      if (app.ok()) apps[i] = std::move(app).value();
    });
  // One of them leads; the other waits in Start until it does.
  ASSERT_TRUE(Eventually([&] { return started() == 1; }));
  int leader = 0;
  {
    std::lock_guard lock(mu);
    leader = apps[0] ? 0 : 1;
    EXPECT_TRUE(apps[leader]->leading());
  }
  ASSERT_TRUE(client()
                  .Create(res::kPods, "work",
                          PodManifest("work", "first", {.queue = "team", .whole_gpus = 1}))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return Bound("first"); }));
  EXPECT_EQ(started(), 1) << "the standby must not schedule while the leader does";

  // The leader stops (and releases the Lease): the standby takes over.
  std::unique_ptr<SchedulerApp> stopping;
  {
    std::lock_guard lock(mu);
    stopping = std::move(apps[leader]);
  }
  stopping.reset();
  for (std::thread& t : threads) t.join();
  ASSERT_NE(apps[1 - leader], nullptr) << "the standby never started scheduling";
  EXPECT_TRUE(apps[1 - leader]->leading());
  ASSERT_TRUE(client()
                  .Create(res::kPods, "work",
                          PodManifest("work", "second", {.queue = "team", .whole_gpus = 1}))
                  .ok());
  EXPECT_TRUE(Eventually([&] { return Bound("second"); }));
}

}  // namespace
}  // namespace vtenant::scheduler

// --each-pod-once decides what the full replay decides under FGD's protocol
// (placement only, no deletions, one arrival per cycle), for every policy.
#include "scheduler-core/sim/in_order.h"

#include <gtest/gtest.h>

#include <random>

namespace vtenant::sched::sim {
namespace {

Trace RandomTrace(uint32_t seed) {
  std::mt19937 rng(seed);
  std::string nodes = "sn,cpu_milli,memory_mib,gpu,model\n";
  for (int i = 0; i < 12; ++i)
    nodes += "n" + std::to_string(i) + "," + (i % 3 ? "64000" : "24000") + ",262144," +
             (i % 2 ? "8" : "4") + "," + (i % 4 ? "T4" : "V100M16") + "\n";
  std::string pods =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  const char* gpu[] = {"0,0", "1,250", "1,330", "1,500", "1,800", "1,1000", "2,1000", "8,1000"};
  for (int i = 0; i < 300; ++i) {
    const std::string spec = rng() % 5 == 0 ? "V100M16" : "";
    pods += "p" + std::to_string(i) + "," + std::to_string(1000 * (1 + rng() % 12)) + ",4096," +
            gpu[rng() % 8] + "," + spec + ",BE,Pending," + std::to_string(i) + ",,\n";
  }
  Trace t;
  t.nodes = ParseNodesCsv("nodes.csv", nodes).value();
  t.pods = ParsePodsCsv("pods.csv", pods).value();
  return t;
}

TEST(InOrderTest, DecidesWhatTheAllocateOnlyReplayDecides) {
  for (PlacementPolicy policy : {PlacementPolicy::kBinpack, PlacementPolicy::kBestFit,
                                 PlacementPolicy::kSpread, PlacementPolicy::kFgd}) {
    for (uint32_t seed : {1u, 2u}) {
      const Trace trace = RandomTrace(seed);
      InOrderOptions once;
      once.scheduler.policy = policy;
      Result<InOrderSummary> fast = PlaceInOrder(trace, once);
      ASSERT_TRUE(fast.ok()) << fast.status().ToString();
      ReplayOptions full;
      full.scheduler.policy = policy;
      full.scheduler.consolidate = full.scheduler.reclaim = full.scheduler.preempt = false;
      full.scheduler.evict_stale_gangs = false;
      full.deletions = false;
      Result<ReplaySummary> slow = Replay(trace, full);
      ASSERT_TRUE(slow.ok()) << slow.status().ToString();
      const std::string what = std::string(PolicyName(policy)) + " seed " + std::to_string(seed);
      EXPECT_EQ(fast->placed, slow->pods_running) << what;
      EXPECT_EQ(fast->gpu_milli_allocated, slow->gpu_milli_allocated) << what;
      EXPECT_GT(fast->placed, 0) << what;
      EXPECT_LT(fast->placed, fast->pods) << what << ": the trace should overflow the cluster";
    }
  }
}

TEST(InOrderTest, CheckpointIsTakenWhenArrivalsReachCapacity) {
  const Trace trace = RandomTrace(3);
  Result<InOrderSummary> s = PlaceInOrder(trace, {});
  ASSERT_TRUE(s.ok());
  EXPECT_GE(s->checkpoint_gpu_milli_arrived, s->gpu_milli_capacity);
  EXPECT_LE(s->checkpoint_gpu_milli_allocated, s->gpu_milli_allocated);
  EXPECT_GT(s->gpu_milli_arrived, s->gpu_milli_capacity);
}

}  // namespace
}  // namespace vtenant::sched::sim

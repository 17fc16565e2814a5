// The generator's output survives the trip through the simulator's files
// and replays; what bench/gen writes is what vtenant-sim reads.
#include "bench/workload.h"

#include <gtest/gtest.h>

#include "scheduler-core/sim/replay.h"

namespace vtenant::bench {
namespace {

WorkloadConfig Small() {
  return {.nodes = 20,
          .leaf_queues = 6,
          .pods = 300,
          .seed = 3,
          .duration_s = 3600,
          .mean_lifetime_s = 600};
}

TEST(WorkloadTest, SameSeedSameWorkload) {
  Workload a = Generate(Small());
  Workload b = Generate(Small());
  ASSERT_EQ(a.pods.size(), b.pods.size());
  for (size_t i = 0; i < a.pods.size(); ++i) {
    EXPECT_EQ(a.pods[i].name, b.pods[i].name);
    EXPECT_EQ(a.pods[i].creation_time, b.pods[i].creation_time);
    EXPECT_EQ(a.deletion_time[i], b.deletion_time[i]);
  }
  ASSERT_TRUE(BuildSnapshot(a).ok()) << BuildSnapshot(a).status().ToString();
}

TEST(WorkloadTest, FilesRoundTripAndReplay) {
  sched::sim::Trace trace = ToTrace(Generate(Small()));
  const std::string dir = ::testing::TempDir();
  ASSERT_TRUE(sched::sim::WriteNodesCsv(dir + "/nodes.csv", trace.nodes).ok());
  ASSERT_TRUE(sched::sim::WritePodsCsv(dir + "/pods.csv", trace.pods).ok());
  ASSERT_TRUE(sched::sim::WriteQueuesYaml(dir + "/queues.yaml", trace.queues).ok());

  sched::sim::Trace read;
  read.nodes = sched::sim::LoadNodesCsv(dir + "/nodes.csv").value();
  read.pods = sched::sim::LoadPodsCsv(dir + "/pods.csv").value();
  read.queues = sched::sim::LoadQueuesYaml(dir + "/queues.yaml").value();
  ASSERT_TRUE(sched::sim::CheckTrace(read, "pods.csv").ok());
  ASSERT_EQ(read.nodes.size(), trace.nodes.size());
  ASSERT_EQ(read.pods.size(), trace.pods.size());
  ASSERT_EQ(read.queues.size(), trace.queues.size());
  for (size_t i = 0; i < trace.pods.size(); ++i) {
    const sched::PodSpec& w = trace.pods[i].spec;
    const sched::PodSpec& r = read.pods[i].spec;
    EXPECT_EQ(r.name, w.name);
    EXPECT_EQ(r.gpu_fraction, w.gpu_fraction) << w.name;
    EXPECT_EQ(r.gpu_memory_mib, w.gpu_memory_mib) << w.name;
    EXPECT_EQ(r.whole_gpus, w.whole_gpus) << w.name;
    EXPECT_EQ(r.queue, w.queue) << w.name;
    EXPECT_EQ(read.pods[i].gang, trace.pods[i].gang) << w.name;
    EXPECT_EQ(read.pods[i].deletion_time, trace.pods[i].deletion_time) << w.name;
  }
  for (size_t i = 0; i < trace.queues.size(); ++i) {
    EXPECT_EQ(read.queues[i].parent, trace.queues[i].parent);
    EXPECT_EQ(read.queues[i].resources[sched::kGpu].quota,
              trace.queues[i].resources[sched::kGpu].quota);
    EXPECT_EQ(read.queues[i].resources[sched::kGpu].over_quota_weight_milli,
              trace.queues[i].resources[sched::kGpu].over_quota_weight_milli);
  }
  Result<sched::sim::ReplaySummary> summary = sched::sim::Replay(read, {});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_GT(summary->pods_scheduled, 0);
  EXPECT_LE(summary->gpu_milli_allocated, summary->gpu_milli_capacity);
}

}  // namespace
}  // namespace vtenant::bench

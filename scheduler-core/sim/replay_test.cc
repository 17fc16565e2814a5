#include "scheduler-core/sim/replay.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace vtenant::sched::sim {
namespace {

constexpr char kHeader[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

Trace TwoGpus(const std::string& pods) {
  Trace t;
  t.nodes =
      ParseNodesCsv("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,L40S\n")
          .value();
  t.pods = ParsePodsCsv("pods.csv", kHeader + pods).value();
  return t;
}

TEST(ReplayTest, FiveHalvesOnTwoGpus) {
  std::string rows;
  for (int i = 1; i <= 5; ++i)
    rows += "p" + std::to_string(i) + ",100,100,1,500,,BE,Pending," + std::to_string(i) + ",,\n";
  Result<ReplaySummary> s = Replay(TwoGpus(rows), {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->pods_scheduled, 4);
  EXPECT_EQ(s->pods_pending, 1);
  EXPECT_EQ(s->gpu_milli_capacity, 2000);
  EXPECT_EQ(s->gpu_milli_allocated, 2000);
  EXPECT_DOUBLE_EQ(s->gpu_allocation_ratio, 1.0);
  EXPECT_EQ(s->fragmented_gpu_milli, 0);
}

TEST(ReplayTest, DeletionsFreeCapacityUnlessTurnedOff) {
  // A whole-GPU pod leaves at t=5; the waiting one gets its GPU then.
  const std::string rows =
      "a,100,100,2,1000,,BE,Running,1,5,\n"
      "b,100,100,1,1000,,BE,Pending,2,,\n";
  Result<ReplaySummary> with = Replay(TwoGpus(rows), {});
  ASSERT_TRUE(with.ok());
  EXPECT_EQ(with->pods_scheduled, 2);
  EXPECT_EQ(with->pods_pending, 0);
  ReplayOptions keep;
  keep.deletions = false;
  Result<ReplaySummary> without = Replay(TwoGpus(rows), keep);
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(without->pods_scheduled, 1);
  EXPECT_EQ(without->pods_pending, 1);
}

TEST(ReplayTest, FragmentationCountsFreeMilliOnSharedDevices) {
  const std::string rows = "a,100,100,1,300,,BE,Pending,1,,\n";
  Result<ReplaySummary> s = Replay(TwoGpus(rows), {});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->fragmented_gpu_milli, 700);
}

TEST(ReplayTest, SeriesAndJsonCarryTheAgreedKeys) {
  const std::string series = ::testing::TempDir() + "/series.csv";
  ReplayOptions o;
  o.series_path = series;
  Result<ReplaySummary> s = Replay(TwoGpus("a,100,100,1,300,,BE,Pending,1,,\n"
                                           "b,100,100,1,1000,,BE,Pending,2,,\n"),
                                   o);
  ASSERT_TRUE(s.ok());
  rapidjson::Document doc;
  doc.Parse(SummaryJson(*s).c_str());
  ASSERT_FALSE(doc.HasParseError());
  for (const char* key : {"pods_scheduled", "pods_pending", "gpu_milli_capacity",
                          "gpu_milli_allocated", "gpu_allocation_ratio", "fragmented_gpu_milli",
                          "queues", "wall_seconds", "decisions_per_second"})
    EXPECT_TRUE(doc.HasMember(key)) << key;
  EXPECT_EQ(doc["gpu_milli_allocated"].GetInt64(), 1300);
  ASSERT_TRUE(doc["queues"].HasMember("default"));
  EXPECT_EQ(doc["queues"]["default"]["allocated"]["gpu_milli"].GetInt64(), 1300);
  std::ifstream in(series);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "time,arrived_gpu_milli,active_demand_gpu_milli,allocated_gpu_milli,"
            "fragmented_gpu_milli,pending_pods\n"
            "1,300,300,300,700,0\n"
            "2,1300,1300,1300,700,0\n");
}

TEST(ReplayTest, CycleWindowsBatchEvents) {
  std::string rows;
  for (int i = 1; i <= 6; ++i)
    rows += "p" + std::to_string(i) + ",100,100,1,100,,BE,Pending," + std::to_string(i) + ",,\n";
  ReplayOptions every_second;
  Result<ReplaySummary> fine = Replay(TwoGpus(rows), every_second);
  ReplayOptions windows;
  windows.cycle_seconds = 3;  // [1,3] and [4,6]
  Result<ReplaySummary> coarse = Replay(TwoGpus(rows), windows);
  ASSERT_TRUE(fine.ok() && coarse.ok());
  EXPECT_EQ(fine->cycles, 6);
  EXPECT_EQ(coarse->cycles, 2);
  EXPECT_EQ(coarse->pods_scheduled, 6);
}

TEST(ReplayTest, UnknownQueueIsAnError) {
  Trace t = TwoGpus("name,100,100,1,300,,BE,Pending,1,,\n");
  t.pods[0].spec.queue = "nope";
  Result<ReplaySummary> s = Replay(t, {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("queue \"nope\" does not exist"), std::string::npos);
}

}  // namespace
}  // namespace vtenant::sched::sim

// The queues' usage as KAI's time-based fairshare reads it: what each held
// over the window, decayed by age, over the cluster's capacity then.
#include "scheduler/usage_history.h"

#include <gtest/gtest.h>

namespace vtenant::scheduler {
namespace {

sched::ResourceVector Gpus(int64_t milli) { return sched::MakeResources(milli, 0, 0); }

TEST(UsageHistoryTest, AQueuesUsageIsItsShareOfTheCapacityOverTheWindow) {
  UsageHistory history({.window_s = 1000, .resolution_s = 10});
  history.Record(0, {}, Gpus(8000));
  EXPECT_TRUE(history.Usage(0).empty()) << "the first record only starts the clock";
  history.Record(100, {{"a", Gpus(4000)}, {"b", Gpus(0)}}, Gpus(8000));
  history.Record(100, {{"a", Gpus(8000)}}, Gpus(8000));  // no time passed: nothing recorded
  std::map<std::string, sched::ResourceVector> usage = history.Usage(100);
  ASSERT_EQ(usage.size(), 1u) << "b held nothing";
  EXPECT_EQ(usage["a"][sched::kGpu], 500'000);

  // Another 100 s with b holding all of it: a half of half, b half.
  history.Record(200, {{"a", Gpus(0)}, {"b", Gpus(8000)}}, Gpus(8000));
  usage = history.Usage(200);
  EXPECT_EQ(usage["a"][sched::kGpu], 250'000);
  EXPECT_EQ(usage["b"][sched::kGpu], 500'000);

  // Once the window has passed over a's time, a used nothing.
  history.Record(1150, {{"b", Gpus(8000)}}, Gpus(8000));
  usage = history.Usage(1150);
  EXPECT_FALSE(usage.contains("a"));
  EXPECT_EQ(usage["b"][sched::kGpu], 1'000'000);
}

TEST(UsageHistoryTest, OlderUsageCountsLessByItsHalfLife) {
  UsageHistory history({.window_s = 100'000, .resolution_s = 3600, .half_life_s = 3600});
  history.Record(0, {}, Gpus(8000));
  history.Record(3600, {{"a", Gpus(8000)}}, Gpus(8000));  // the first hour: a's
  history.Record(7200, {{"b", Gpus(8000)}}, Gpus(8000));  // the second: b's
  // At 7200 a's hour ended an hour ago and counts half: a 0.5 / 1.5, b 1 / 1.5.
  std::map<std::string, sched::ResourceVector> usage = history.Usage(7200);
  EXPECT_EQ(usage["a"][sched::kGpu], 333'333);
  EXPECT_EQ(usage["b"][sched::kGpu], 666'667);
}

// KAI's tumbling window: usage counts from the latest of the window's
// starts, and none before the first.
TEST(UsageHistoryTest, ATumblingWindowStartsAfreshAtEachOfItsStarts) {
  UsageHistory history({.window_s = 100, .resolution_s = 10, .tumbling_start = 0});
  history.Record(0, {}, Gpus(8000));
  for (int64_t t = 10; t <= 90; t += 10) history.Record(t, {{"a", Gpus(8000)}}, Gpus(8000));
  EXPECT_EQ(history.Usage(90)["a"][sched::kGpu], 1'000'000);
  history.Record(110, {{"b", Gpus(8000)}}, Gpus(8000));
  std::map<std::string, sched::ResourceVector> usage = history.Usage(110);
  EXPECT_FALSE(usage.contains("a")) << "a's usage was in the window before";
  EXPECT_EQ(usage["b"][sched::kGpu], 1'000'000);

  UsageHistory later({.window_s = 100, .resolution_s = 10, .tumbling_start = 1000});
  later.Record(0, {}, Gpus(8000));
  later.Record(10, {{"a", Gpus(8000)}}, Gpus(8000));
  EXPECT_TRUE(later.Usage(10).empty()) << "before its first window";
}

// KAI's cron window: usage counts from the latest time the schedule names.
TEST(UsageHistoryTest, ACronWindowStartsAfreshAtEachTimeItsScheduleNames) {
  // Every hour on the hour; the clock starts at 1970-01-01T00:00:00Z.
  UsageHistory history({.resolution_s = 60, .cron = CronSchedule::Parse("0 * * * *").value()});
  history.Record(0, {}, Gpus(8000));
  for (int64_t t = 60; t <= 3540; t += 60) history.Record(t, {{"a", Gpus(8000)}}, Gpus(8000));
  EXPECT_EQ(history.Usage(3540)["a"][sched::kGpu], 1'000'000);
  for (int64_t t = 3600; t <= 4200; t += 60) history.Record(t, {{"b", Gpus(4000)}}, Gpus(8000));
  std::map<std::string, sched::ResourceVector> usage = history.Usage(4200);
  EXPECT_FALSE(usage.contains("a")) << "a's usage was before 01:00";
  EXPECT_EQ(usage["b"][sched::kGpu], 500'000);
}

TEST(UsageHistoryTest, ASavedHistoryIsRestoredAndCoarsenedWhereItIsTooLarge) {
  UsageHistory history({.window_s = 10'000, .resolution_s = 10});
  history.Record(0, {}, Gpus(8000));
  for (int64_t t = 10; t <= 1000; t += 10)
    history.Record(t, {{"a", Gpus(t < 500 ? 8000 : 0)}, {"b", Gpus(t < 500 ? 0 : 4000)}},
                   Gpus(8000));
  const std::map<std::string, sched::ResourceVector> usage = history.Usage(1000);
  ASSERT_EQ(usage.size(), 2u);

  UsageHistory restored({.window_s = 10'000, .resolution_s = 10});
  ASSERT_TRUE(restored.Restore(history.Save(1 << 20)).ok());
  EXPECT_EQ(restored.Usage(1000), usage);

  // A hundred buckets do not fit 2 KiB; merged, the sums over the window
  // are the same.
  const std::string small = history.Save(2048);
  EXPECT_LE(small.size(), 2048u);
  UsageHistory coarse({.window_s = 10'000, .resolution_s = 10});
  ASSERT_TRUE(coarse.Restore(small).ok());
  EXPECT_EQ(coarse.Usage(1000), usage);

  // The next record only starts the clock: the time no scheduler ran is not
  // counted.
  coarse.Record(5000, {{"a", Gpus(8000)}}, Gpus(8000));
  EXPECT_EQ(coarse.Usage(5000), usage);

  EXPECT_FALSE(coarse.Restore("{}").ok());
  EXPECT_FALSE(coarse.Restore(R"({"version":1,"buckets":[{"start":0}]})").ok());
  EXPECT_EQ(coarse.Usage(5000), usage) << "a refused document changes nothing";
}

}  // namespace
}  // namespace vtenant::scheduler

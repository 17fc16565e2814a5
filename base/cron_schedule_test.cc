#include "base/cron_schedule.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "base/rfc3339.h"

namespace vtenant {
namespace {

int64_t At(const char* rfc3339) {
  return std::chrono::duration_cast<std::chrono::seconds>(
             ParseRfc3339(rfc3339).value().time_since_epoch())
      .count();
}

std::string Latest(const char* expression, const char* now) {
  Result<CronSchedule> schedule = CronSchedule::Parse(expression);
  if (!schedule.ok()) return schedule.status().ToString();
  std::optional<int64_t> latest = schedule->LatestAtOrBefore(At(now));
  if (!latest) return "none";
  return FormatRfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(*latest)));
}

// 2026-12-07 is a Monday.
TEST(CronScheduleTest, TheLatestTimeTheScheduleNames) {
  struct Row {
    const char* expression;
    const char* now;
    const char* want;
  } rows[] = {
      {"0 0 * * 1", "2026-12-09T15:30:00Z", "2026-12-07T00:00:00Z"},  // weekly, Monday
      {"0 0 * * 1", "2026-12-07T00:00:00Z", "2026-12-07T00:00:00Z"},  // at the time itself
      {"0 0 * * 1", "2026-12-06T23:59:59Z", "2026-11-30T00:00:00Z"},
      {"0 0 * * MON", "2026-12-09T15:30:00Z", "2026-12-07T00:00:00Z"},
      {"*/15 * * * *", "2026-12-07T10:44:59Z", "2026-12-07T10:30:00Z"},
      {"5/15 9-17 * * *", "2026-12-07T08:00:00Z", "2026-12-06T17:50:00Z"},
      {"0 6,18 * * *", "2026-12-07T17:00:00Z", "2026-12-07T06:00:00Z"},
      {"0 0 1 * *", "2026-12-07T10:00:00Z", "2026-12-01T00:00:00Z"},
      {"0 0 1 jan,jul *", "2026-12-07T10:00:00Z", "2026-07-01T00:00:00Z"},
      {"@monthly", "2026-12-07T10:00:00Z", "2026-12-01T00:00:00Z"},
      {"@weekly", "2026-12-07T10:00:00Z", "2026-12-06T00:00:00Z"},  // Sunday
      {"@daily", "2026-12-07T10:00:00Z", "2026-12-07T00:00:00Z"},
      {"@yearly", "2026-12-07T10:00:00Z", "2026-01-01T00:00:00Z"},
      {"0 0 * * 7", "2026-12-07T10:00:00Z", "2026-12-06T00:00:00Z"},  // 7 is Sunday
      // Both day fields restricted: either names the day.
      {"0 0 13 * 5", "2026-12-07T10:00:00Z", "2026-12-04T00:00:00Z"},  // a Friday
      {"0 0 6 * 5", "2026-12-07T10:00:00Z", "2026-12-06T00:00:00Z"},   // the 6th
      // A day field written with * names no day of its own (cronexpr).
      {"0 0 */2 * 3", "2026-12-07T10:00:00Z", "2026-12-02T00:00:00Z"},
      // Seven fields: seconds first, a year last; six: a year last.
      {"30 0 0 * * * *", "2026-12-07T00:00:10Z", "2026-12-06T00:00:30Z"},
      {"0 0 1 1 * 2024", "2026-12-07T10:00:00Z", "2024-01-01T00:00:00Z"},
      {"0 0 29 2 *", "2026-12-07T10:00:00Z", "2024-02-29T00:00:00Z"},
      {"0 0 30 2 *", "2026-12-07T10:00:00Z", "none"},
      {"0 0 1 1 * 2030", "2026-12-07T10:00:00Z", "none"},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(Latest(row.expression, row.now), row.want) << row.expression << " at " << row.now;
  }
}

TEST(CronScheduleTest, WhatItCannotReadIsSaid) {
  struct Row {
    const char* expression;
    const char* words;
  } rows[] = {
      {"0 0 * *", "has 4 fields"},
      {"0 0 * * * * * *", "has 8 fields"},
      {"60 0 * * *", "minute 60 is outside 0-59"},
      {"0 24 * * *", "hour 24 is outside 0-23"},
      {"0 0 0 * *", "day of month 0 is outside 1-31"},
      {"0 0 * 13 *", "month 13 is outside 1-12"},
      {"0 0 * * 8", "day of week 8 is outside 0-7"},
      {"0 0 * * FUN", "day of week \"FUN\" is not a number or a name"},
      {"0 0 L * *", "L, W and # are not supported"},
      {"0 0 * * 5#2", "L, W and # are not supported"},
      {"0 0 * * 5-1", "runs backwards"},
      {"*/0 * * * *", "the step is not a positive number"},
      {"@fortnightly", "no such macro"},
      {"0 0 * * * 1969", "year 1969 is outside 1970-2099"},
  };
  for (const Row& row : rows) {
    Result<CronSchedule> schedule = CronSchedule::Parse(row.expression);
    ASSERT_FALSE(schedule.ok()) << row.expression;
    EXPECT_EQ(schedule.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(schedule.status().message().find(row.words), std::string::npos)
        << row.expression << ": " << schedule.status().message();
  }
}

}  // namespace
}  // namespace vtenant

// CronSchedule: a cron expression, as KAI's time-based fairshare reads its
// cronString (the cronexpr package): the times it names, in UTC, to the
// second.
//
//   Result<CronSchedule> weekly = CronSchedule::Parse("0 0 * * 1");
//   std::optional<int64_t> reset = weekly->LatestAtOrBefore(now);  // last Monday 00:00
//
// Fields, separated by blanks: minute hour day-of-month month day-of-week
// (five); with a year last (six); with seconds first too (seven). Each is
// `*` (or `?`), a value, a range `a-b`, any of them with a step `/n`, or a
// comma list of those; months and days of the week may be named (JAN,
// SUN; any case), and day of week 7 is Sunday as 0 is. A day field written
// with * or ? (a step too) names no day of its own; when both are
// restricted, a day either names counts, as in every cron. The macros
// @yearly (@annually), @monthly, @weekly, @daily (@midnight), @hourly and
// @minutely stand for their five fields. Not read: L, W and # (last day,
// nearest weekday, nth weekday of the month).
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"

namespace vtenant {

class CronSchedule {
 public:
  // The schedule `expression` names; InvalidArgument naming the field and
  // what is wrong with it (a value out of range, an unknown name, a field
  // too many or too few, an L, W or #).
  static Result<CronSchedule> Parse(std::string_view expression);

  // The latest time (seconds since the epoch, UTC) at or before `now` the
  // schedule names, looking back at most kLookBackDays; nullopt when none
  // is that recent (a year field all in the future, February 30).
  std::optional<int64_t> LatestAtOrBefore(int64_t now) const;

  // How far LatestAtOrBefore looks back: eight years and a day, so that a
  // schedule of February 29 is always found.
  static constexpr int64_t kLookBackDays = 8 * 366 + 1;

 private:
  CronSchedule() = default;
  // Whether the day fields name a day that is `day` of its month (1-31)
  // and `weekday` of its week (0-6, Sunday 0).
  bool DayNamed(unsigned day, unsigned weekday) const;

  std::bitset<60> seconds_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  // 1-31
  std::bitset<13> months_;         // 1-12
  std::bitset<7> days_of_week_;    // 0-6, Sunday 0
  std::bitset<130> years_;         // 1970-2099
  bool day_of_month_restricted_ = false;
  bool day_of_week_restricted_ = false;
};

}  // namespace vtenant

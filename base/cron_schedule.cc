#include "base/cron_schedule.h"

#include <array>
#include <charconv>
#include <chrono>
#include <string>
#include <vector>

#include "base/ascii.h"

namespace vtenant {
namespace {

// One field's domain, and the names its values may have (index + offset).
struct FieldSpec {
  const char* name;
  int min;
  int max;
  const std::vector<std::string_view>* names = nullptr;
  int name_offset = 0;
};

// Lower case: a name is compared in lower case.
const std::vector<std::string_view> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                   "jul", "aug", "sep", "oct", "nov", "dec"};
const std::vector<std::string_view> kDayNames = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

constexpr FieldSpec kSeconds{"second", 0, 59};
constexpr FieldSpec kMinutes{"minute", 0, 59};
constexpr FieldSpec kHours{"hour", 0, 23};
constexpr FieldSpec kDaysOfMonth{"day of month", 1, 31};
const FieldSpec kMonths{"month", 1, 12, &kMonthNames, 1};
// 7 is Sunday too; folded onto 0 when the field is read.
const FieldSpec kDaysOfWeek{"day of week", 0, 7, &kDayNames, 0};
constexpr FieldSpec kYears{"year", 1970, 2099};

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

Result<int> Value(std::string_view text, const FieldSpec& spec) {
  if (spec.names != nullptr) {
    const std::string lower = AsciiLower(text);
    for (size_t i = 0; i < spec.names->size(); ++i) {
      if (lower == (*spec.names)[i]) return static_cast<int>(i) + spec.name_offset;
    }
  }
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument(std::string(spec.name) + " \"" + std::string(text) +
                           "\" is not a number" + (spec.names != nullptr ? " or a name" : ""));
  }
  if (value < spec.min || value > spec.max) {
    return InvalidArgument(std::string(spec.name) + " " + std::to_string(value) + " is outside " +
                           std::to_string(spec.min) + "-" + std::to_string(spec.max));
  }
  return value;
}

// The values field `text` names, as bits from spec.min; `*all` is set when
// an item is `*` or `?` (with or without a step), which leaves a day field
// unrestricted.
Result<std::vector<bool>> Field(std::string_view text, const FieldSpec& spec, bool* all) {
  std::vector<bool> bits(spec.max - spec.min + 1, false);
  if (text.empty()) return InvalidArgument(std::string(spec.name) + " is empty");
  for (std::string_view item : Split(text, ',')) {
    if (item.find_first_of("LW#") != std::string_view::npos) {
      return InvalidArgument(std::string(spec.name) + " \"" + std::string(item) +
                             "\": L, W and # are not supported");
    }
    std::vector<std::string_view> stepped = Split(item, '/');
    if (stepped.size() > 2) {
      return InvalidArgument(std::string(spec.name) + " \"" + std::string(item) +
                             "\" has two steps");
    }
    int step = 1;
    if (stepped.size() == 2) {
      auto [end, ec] =
          std::from_chars(stepped[1].data(), stepped[1].data() + stepped[1].size(), step);
      if (ec != std::errc() || end != stepped[1].data() + stepped[1].size() || step < 1) {
        return InvalidArgument(std::string(spec.name) + " \"" + std::string(item) +
                               "\": the step is not a positive number");
      }
    }
    int first = spec.min;
    int last = spec.max;
    if (stepped[0] == "*" || stepped[0] == "?") {
      if (all != nullptr) *all = true;
    } else {
      std::vector<std::string_view> range = Split(stepped[0], '-');
      if (range.size() > 2) {
        return InvalidArgument(std::string(spec.name) + " \"" + std::string(item) +
                               "\" is not a range");
      }
      VT_ASSIGN_OR_RETURN(first, Value(range[0], spec));
      if (range.size() == 2) {
        VT_ASSIGN_OR_RETURN(last, Value(range[1], spec));
      } else if (stepped.size() == 1) {
        last = first;  // "5" alone; "5/15" runs to the field's end
      }
      if (last < first) {
        return InvalidArgument(std::string(spec.name) + " \"" + std::string(item) +
                               "\" runs backwards");
      }
    }
    for (int v = first; v <= last; v += step) bits[v - spec.min] = true;
  }
  return bits;
}

template <size_t N>
void SetBits(const std::vector<bool>& from, int offset, std::bitset<N>& to) {
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i]) to.set(i + offset);
  }
}

}  // namespace

Result<CronSchedule> CronSchedule::Parse(std::string_view expression) {
  std::vector<std::string_view> fields;
  for (std::string_view f : Split(expression, ' ')) {
    for (std::string_view g : Split(f, '\t')) {
      if (!g.empty()) fields.push_back(g);
    }
  }
  static const std::array<std::pair<std::string_view, std::string_view>, 8> kMacros = {{
      {"@yearly", "0 0 1 1 *"},
      {"@annually", "0 0 1 1 *"},
      {"@monthly", "0 0 1 * *"},
      {"@weekly", "0 0 * * 0"},
      {"@daily", "0 0 * * *"},
      {"@midnight", "0 0 * * *"},
      {"@hourly", "0 * * * *"},
      {"@minutely", "* * * * *"},
  }};
  if (fields.size() == 1 && fields[0].starts_with("@")) {
    for (const auto& [macro, meaning] : kMacros) {
      if (macro == fields[0]) return Parse(meaning);
    }
    return InvalidArgument("cron \"" + std::string(expression) + "\": no such macro");
  }
  if (fields.size() < 5 || fields.size() > 7) {
    return InvalidArgument("cron \"" + std::string(expression) + "\" has " +
                           std::to_string(fields.size()) +
                           " fields; want minute hour day-of-month month day-of-week, with "
                           "seconds first and a year last (seven), or a year last (six)");
  }
  // Five fields: no seconds, any year; six: a year last; seven: seconds
  // first and a year last (cronexpr's reading).
  std::string_view seconds = "0";
  std::string_view years = "*";
  size_t at = 0;
  if (fields.size() == 7) seconds = fields[at++];
  if (fields.size() >= 6) years = fields.back();
  CronSchedule s;
  auto read = [&](std::string_view text, const FieldSpec& spec,
                  bool* all = nullptr) -> Result<std::vector<bool>> {
    Result<std::vector<bool>> bits = Field(text, spec, all);
    if (!bits.ok()) {
      return InvalidArgument("cron \"" + std::string(expression) +
                             "\": " + std::string(bits.status().message()));
    }
    return bits;
  };
  VT_ASSIGN_OR_RETURN(std::vector<bool> second_bits, read(seconds, kSeconds));
  VT_ASSIGN_OR_RETURN(std::vector<bool> minute_bits, read(fields[at], kMinutes));
  VT_ASSIGN_OR_RETURN(std::vector<bool> hour_bits, read(fields[at + 1], kHours));
  bool any_day_of_month = false;
  bool any_day_of_week = false;
  VT_ASSIGN_OR_RETURN(std::vector<bool> dom_bits,
                      read(fields[at + 2], kDaysOfMonth, &any_day_of_month));
  VT_ASSIGN_OR_RETURN(std::vector<bool> month_bits, read(fields[at + 3], kMonths));
  VT_ASSIGN_OR_RETURN(std::vector<bool> dow_bits,
                      read(fields[at + 4], kDaysOfWeek, &any_day_of_week));
  VT_ASSIGN_OR_RETURN(std::vector<bool> year_bits, read(years, kYears));
  SetBits(second_bits, 0, s.seconds_);
  SetBits(minute_bits, 0, s.minutes_);
  SetBits(hour_bits, 0, s.hours_);
  SetBits(dom_bits, 1, s.days_of_month_);
  SetBits(month_bits, 1, s.months_);
  for (size_t d = 0; d < dow_bits.size(); ++d) {
    if (dow_bits[d]) s.days_of_week_.set(d % 7);
  }
  SetBits(year_bits, 0, s.years_);
  s.day_of_month_restricted_ = !any_day_of_month;
  s.day_of_week_restricted_ = !any_day_of_week;
  return s;
}

bool CronSchedule::DayNamed(unsigned day, unsigned weekday) const {
  // As cronexpr (and every cron) has it: a day field written with * names
  // no day of its own; both restricted, either one names the day.
  if (!day_of_month_restricted_ && !day_of_week_restricted_) return true;
  const bool by_month = day_of_month_restricted_ && days_of_month_[day];
  const bool by_week = day_of_week_restricted_ && days_of_week_[weekday];
  return by_month || by_week;
}

std::optional<int64_t> CronSchedule::LatestAtOrBefore(int64_t now) const {
  const int64_t today = now >= 0 ? now / 86400 : (now - 86399) / 86400;
  const int64_t now_of_day = now - today * 86400;
  for (int64_t back = 0; back <= kLookBackDays; ++back) {
    const int64_t day = today - back;
    const std::chrono::sys_days civil{std::chrono::days{day}};
    const std::chrono::year_month_day date{civil};
    const int year = static_cast<int>(date.year());
    if (year < 1970) return std::nullopt;
    if (year > 2099 || !years_[year - 1970] || !months_[static_cast<unsigned>(date.month())])
      continue;
    if (!DayNamed(static_cast<unsigned>(date.day()), std::chrono::weekday{civil}.c_encoding()))
      continue;
    const int64_t limit = back == 0 ? now_of_day : 86399;
    const int lh = static_cast<int>(limit / 3600);
    const int lm = static_cast<int>(limit % 3600 / 60);
    const int ls = static_cast<int>(limit % 60);
    for (int h = lh; h >= 0; --h) {
      if (!hours_[h]) continue;
      for (int m = h == lh ? lm : 59; m >= 0; --m) {
        if (!minutes_[m]) continue;
        for (int sec = h == lh && m == lm ? ls : 59; sec >= 0; --sec) {
          if (seconds_[sec]) return day * 86400 + h * 3600 + m * 60 + sec;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace vtenant

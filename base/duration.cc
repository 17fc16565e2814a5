#include "base/duration.h"

#include <cstdint>
#include <limits>
#include <string>

namespace vtenant {
namespace {

using Wide = unsigned __int128;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Nanoseconds in one `unit`; 0 for a unit not taken.
int64_t UnitNanoseconds(std::string_view unit, DurationUnits units) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1'000;  // µs, μs
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  if (unit == "m") return 60'000'000'000;
  if (unit == "h") return 3'600'000'000'000;
  if (unit == "d" && units == DurationUnits::kWithDays) return 86'400'000'000'000;
  return 0;
}

}  // namespace

Result<std::chrono::nanoseconds> ParseDuration(std::string_view text, DurationUnits units) {
  const std::string quoted = "duration \"" + std::string(text) + "\"";
  auto unlike = [&] {
    return InvalidArgument(quoted + (units == DurationUnits::kWithDays
                                         ? " is not like 90s, 1h30m, 1.5h or 7d"
                                         : " is not like 90s, 1h30m or 1.5h"));
  };
  auto too_long = [&] { return InvalidArgument(quoted + " is too long"); };

  std::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest == "0") return std::chrono::nanoseconds(0);
  if (rest.empty()) return unlike();
  // The most the magnitude may reach: -2^63 ns is an int64, +2^63 is not.
  const Wide limit = Wide(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
  Wide total = 0;
  while (!rest.empty()) {
    size_t i = 0;
    Wide whole = 0;
    bool overflow = false;
    for (; i < rest.size() && IsDigit(rest[i]); ++i) {
      if (!overflow) whole = whole * 10 + Wide(rest[i] - '0');
      overflow = overflow || whole > limit;
    }
    const bool has_whole = i > 0;
    // Digits past what 18 decimal places resolve change nothing a
    // nanosecond count can hold; they are read and passed over.
    Wide fraction = 0, scale = 1;
    bool has_fraction = false;
    if (i < rest.size() && rest[i] == '.') {
      for (++i; i < rest.size() && IsDigit(rest[i]); ++i) {
        has_fraction = true;
        if (scale < Wide(1'000'000'000'000'000'000)) {
          fraction = fraction * 10 + Wide(rest[i] - '0');
          scale *= 10;
        }
      }
    }
    if (!has_whole && !has_fraction) return unlike();
    size_t end = i;
    while (end < rest.size() && !IsDigit(rest[end]) && rest[end] != '.') ++end;
    const int64_t per_unit = UnitNanoseconds(rest.substr(i, end - i), units);
    if (per_unit == 0) return unlike();
    if (overflow) return too_long();
    total += whole * Wide(per_unit) + fraction * Wide(per_unit) / scale;
    if (total > limit) return too_long();
    rest.remove_prefix(end);
  }
  if (!negative) return std::chrono::nanoseconds(static_cast<int64_t>(total));
  if (total == limit) return std::chrono::nanoseconds(std::numeric_limits<int64_t>::min());
  return std::chrono::nanoseconds(-static_cast<int64_t>(total));
}

}  // namespace vtenant

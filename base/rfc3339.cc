#include "base/rfc3339.h"

#include <ctime>

namespace vtenant {
namespace {

std::string Format(std::chrono::system_clock::time_point t, bool micro) {
  const auto seconds = std::chrono::time_point_cast<std::chrono::seconds>(t);
  const std::time_t tt = std::chrono::system_clock::to_time_t(seconds);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[40];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out(buf, n);
  if (micro) {
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(t - seconds).count();
    char frac[16];
    std::snprintf(frac, sizeof(frac), ".%06lld", static_cast<long long>(us));
    out += frac;
  }
  return out + "Z";
}

}  // namespace

std::string FormatRfc3339(std::chrono::system_clock::time_point t) { return Format(t, false); }
std::optional<std::chrono::system_clock::time_point> ParseRfc3339(std::string_view s) {
  const std::string text(s);
  std::tm tm{};
  const char* rest = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr) return std::nullopt;
  // Up to nine digits of fraction count (nanoseconds); more are read and
  // passed over.
  std::chrono::nanoseconds fraction(0);
  if (*rest == '.') {
    ++rest;
    if (*rest < '0' || *rest > '9') return std::nullopt;
    int64_t scale = 100'000'000;
    for (; *rest >= '0' && *rest <= '9'; ++rest, scale /= 10) {
      fraction += std::chrono::nanoseconds((*rest - '0') * scale);
    }
  }
  if (std::string_view(rest) != "Z") return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&tm)) +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(fraction);
}

std::string FormatRfc3339Micro(std::chrono::system_clock::time_point t) { return Format(t, true); }

}  // namespace vtenant

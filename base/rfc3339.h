// Calendar time as Kubernetes writes it in API fields: metav1.Time
// ("2026-11-29T18:36:04Z") and metav1.MicroTime (with microseconds). The one
// reader and writer of that form, for every program and scheduler-core.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace vtenant {

// "2026-11-29T18:36:04Z" (metav1.Time), in UTC.
std::string FormatRfc3339(std::chrono::system_clock::time_point t);

// "2026-11-29T18:36:04.123456Z" (metav1.MicroTime, used by Events and Leases).
std::string FormatRfc3339Micro(std::chrono::system_clock::time_point t);

// Reads "2026-11-29T18:36:04Z", with or without fractional seconds (kept to
// the nanosecond), as the API server writes metav1.Time and metav1.MicroTime.
// nullopt when `s` is not that form.
std::optional<std::chrono::system_clock::time_point> ParseRfc3339(std::string_view s);

}  // namespace vtenant

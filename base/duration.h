// Durations as Kubernetes objects write them: the syntax of Go's
// time.ParseDuration, which metav1.Duration fields are read with (a KAI
// Queue's preemptMinRuntime and reclaimMinRuntime among them), so that a
// value another tool accepts is accepted here too. Every duration the
// programs read, in an object, a flag or a trace, goes through ParseDuration.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace vtenant {

// Which units ParseDuration takes besides Go's.
enum class DurationUnits {
  kGo,        // ns, us (or µs), ms, s, m, h
  kWithDays,  // those and d (24 h), for lifetimes a person writes ("7d")
};

// `text` as a duration: an optional sign, then one or more decimal numbers,
// each with an optional fraction and a unit ("300ms", "1.5h", "2h45m",
// "-90s"); "0" alone is zero. InvalidArgument quoting `text` for anything
// else ("5 minutes", "10", "1y") or for a total beyond what int64
// nanoseconds hold (about 292 years).
Result<std::chrono::nanoseconds> ParseDuration(std::string_view text,
                                               DurationUnits units = DurationUnits::kGo);

// `d` in whole seconds, rounded up: a minimum runtime of "500ms" protects
// for a second, never for none.
inline int64_t CeilSeconds(std::chrono::nanoseconds d) {
  return std::chrono::ceil<std::chrono::seconds>(d).count();
}

}  // namespace vtenant

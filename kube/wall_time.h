// The wall clock, injectable. (kube::Clock is a monotonic clock for delays;
// API fields need calendar time, written by base/rfc3339.h.)
#pragma once

#include <chrono>
#include <functional>

namespace vtenant::kube {

using WallClock = std::function<std::chrono::system_clock::time_point()>;

inline std::chrono::system_clock::time_point SystemNow() {
  return std::chrono::system_clock::now();
}

}  // namespace vtenant::kube

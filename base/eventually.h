// Eventually: bounded polling for a condition that another process or
// thread makes true (a server answering, a process gone).
//
// Tests use it because they never assert on time: they wait with a generous
// upper bound, so a slow machine costs time, not a false failure. The local
// environment uses it to wait for stopped processes to go.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace vtenant {

// Polls `condition` every `every` until it holds (true) or `limit` passes (false).
inline bool Eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = std::chrono::seconds(60),
                       std::chrono::milliseconds every = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
}

}  // namespace vtenant

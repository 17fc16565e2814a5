// Eventually: bounded polling for tests that wait on real servers or threads.
//
// Tests never assert on time; they wait for a condition with a generous upper
// bound so a slow machine costs time, not a false failure.
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

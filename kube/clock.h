// Clock: the time source of everything that waits or backs off, so tests can
// move time by hand instead of sleeping.
//
// RealClock reads std::chrono::steady_clock. Tests use FakeClock
// (kube/testing/fake_clock.h), which moves only when told.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include "kube/cancellation.h"

namespace vtenant::kube {

class Clock {
 public:
  using Duration = std::chrono::steady_clock::duration;
  using TimePoint = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;

  // The current time. Never goes backwards.
  virtual TimePoint Now() const = 0;

  // Waits on `cv`, with `lock` released meanwhile, until `cv` is notified or
  // Now() reaches `deadline`. May return early (spurious wakeups): callers
  // re-check their condition and the time in a loop.
  virtual void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         TimePoint deadline) const = 0;

  // Registers `wake`, called after every jump of this clock so that waiters
  // blocked in WaitUntil re-check the time. `wake` typically locks the waiter's
  // mutex and notifies its condition variable; it must not call back into the
  // clock. Returns a handle for RemoveWaker. A clock that only moves with real
  // time never calls it.
  virtual uint64_t AddWaker(std::function<void()> wake) = 0;

  // Unregisters a waker. When this returns, the waker is not running and will
  // not run again, so its captures may be destroyed.
  virtual void RemoveWaker(uint64_t handle) = 0;
};

// Real monotonic time.
class RealClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 TimePoint deadline) const override {
    cv.wait_until(lock, deadline);
  }
  uint64_t AddWaker(std::function<void()>) override { return 0; }
  void RemoveWaker(uint64_t) override {}
};

// The process-wide real clock; never destroyed.
Clock& DefaultClock();

// Sleeps on `clock` until it reads `until` or `cancel` (may be null) fires.
// Returns true if cancelled (at once when it already was), false once the
// time has come.
bool SleepUntil(Clock& clock, Clock::TimePoint until, Cancellation* cancel);

}  // namespace vtenant::kube

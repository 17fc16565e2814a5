// FakeClock: time that stands still until a test calls Advance(), which
// wakes whoever waits on it. Part of vtenant_kube_testing; programs never
// link it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include "kube/clock.h"

namespace vtenant::kube {

// Time that moves only when told. Thread-safe.
class FakeClock final : public Clock {
 public:
  // Starts at an arbitrary fixed point, far from zero so that subtracting
  // durations never underflows.
  FakeClock();

  TimePoint Now() const override { return TimePoint(Duration(now_.load())); }

  // Waits for a notification only: the time cannot pass without Advance(),
  // which calls the wakers. With SetAdvanceOnWait(true) it moves the time to
  // `deadline` instead and returns at once.
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 TimePoint deadline) const override;

  uint64_t AddWaker(std::function<void()> wake) override;
  void RemoveWaker(uint64_t handle) override;

  // Moves time forward by `d` (negative values are ignored) and runs every
  // waker.
  void Advance(Duration d);

  // When on, every wait ends at once at its deadline, time jumping there:
  // code under test that sleeps (a retry's backoff) runs straight through on
  // one thread, and Now() shows exactly how long it slept. Wakers are not
  // run on such a jump, so it suits one waiting thread only.
  void SetAdvanceOnWait(bool on) { advance_on_wait_ = on; }

  // How many threads are inside WaitUntil now. A test waits for a thread to
  // be asleep (polling this) before it advances the time the thread waits
  // for, so the thread cannot read the time after the jump and sleep on.
  int Waiters() const { return waiters_.load(); }

 private:
  // An atomic, not guarded by mu_, so Now() can be called while a waker holds
  // the waiter's lock and while Advance holds mu_.
  mutable std::atomic<Duration::rep> now_;
  std::atomic<bool> advance_on_wait_{false};
  mutable std::atomic<int> waiters_{0};
  std::mutex mu_;  // guards wakers_ and serialises Advance with RemoveWaker
  std::map<uint64_t, std::function<void()>> wakers_;
  uint64_t next_handle_ = 1;
};

}  // namespace vtenant::kube

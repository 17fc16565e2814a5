#include "kube/testing/fake_clock.h"

namespace vtenant::kube {

FakeClock::FakeClock()
    : now_(std::chrono::duration_cast<Duration>(std::chrono::hours(24)).count()) {}

void FakeClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                          TimePoint deadline) const {
  if (Now() >= deadline) return;
  if (advance_on_wait_) {
    const Duration::rep target = deadline.time_since_epoch().count();
    Duration::rep now = now_.load();
    while (now < target && !now_.compare_exchange_weak(now, target)) {
    }
    return;
  }
  ++waiters_;
  cv.wait(lock);
  --waiters_;
}

uint64_t FakeClock::AddWaker(std::function<void()> wake) {
  std::lock_guard guard(mu_);
  uint64_t handle = next_handle_++;
  wakers_.emplace(handle, std::move(wake));
  return handle;
}

void FakeClock::RemoveWaker(uint64_t handle) {
  std::lock_guard guard(mu_);
  wakers_.erase(handle);
}

void FakeClock::Advance(Duration d) {
  // Wakers run under mu_ so RemoveWaker cannot return while one is running.
  // No deadlock: a waiter holding its own lock only ever calls Now(), which
  // does not take mu_.
  std::lock_guard guard(mu_);
  if (d > Duration::zero()) now_.fetch_add(d.count());
  for (auto& [handle, wake] : wakers_) wake();
}

}  // namespace vtenant::kube

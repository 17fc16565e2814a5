#include "kube/clock.h"

#include <memory>

namespace vtenant::kube {

Clock& DefaultClock() {
  static RealClock* clock = new RealClock();  // leaked: usable during static destruction
  return *clock;
}

bool SleepUntil(Clock& clock, Clock::TimePoint until, Cancellation* cancel) {
  // Shared with the callbacks: Cancellation may still be running one after
  // Unregister returns, so they must not point into this frame.
  struct Waiter {
    std::mutex mu;
    std::condition_variable cv;
    bool cancelled = false;
  };
  auto waiter = std::make_shared<Waiter>();
  auto wake = [waiter] {
    std::lock_guard lock(waiter->mu);
    waiter->cv.notify_all();
  };
  const uint64_t waker = clock.AddWaker(wake);
  bool cancelled = false;
  {
    CancellationRegistration on_cancel(cancel, [waiter] {
      std::lock_guard lock(waiter->mu);
      waiter->cancelled = true;
      waiter->cv.notify_all();
    });
    std::unique_lock lock(waiter->mu);
    while (!waiter->cancelled && clock.Now() < until) clock.WaitUntil(waiter->cv, lock, until);
    cancelled = waiter->cancelled;
  }
  clock.RemoveWaker(waker);
  return cancelled;
}

}  // namespace vtenant::kube

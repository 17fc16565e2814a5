#include "kube/testing/fake_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace vtenant::kube {
namespace {

using std::chrono::seconds;

TEST(FakeClockTest, MovesOnlyWhenAdvanced) {
  FakeClock clock;
  Clock::TimePoint start = clock.Now();
  EXPECT_EQ(clock.Now(), start);
  clock.Advance(seconds(3));
  EXPECT_EQ(clock.Now() - start, seconds(3));
  clock.Advance(-seconds(10));  // time never goes backwards
  EXPECT_EQ(clock.Now() - start, seconds(3));
}

TEST(FakeClockTest, AdvanceRunsWakersUntilRemoved) {
  FakeClock clock;
  int woken = 0;
  uint64_t handle = clock.AddWaker([&] { ++woken; });
  clock.Advance(seconds(1));
  clock.Advance(seconds(1));
  EXPECT_EQ(woken, 2);
  clock.RemoveWaker(handle);
  clock.Advance(seconds(1));
  EXPECT_EQ(woken, 2);
}

TEST(FakeClockTest, WaiterWakesWhenDeadlinePasses) {
  FakeClock clock;
  std::mutex mu;
  std::condition_variable cv;
  uint64_t handle = clock.AddWaker([&] {
    std::lock_guard guard(mu);
    cv.notify_all();
  });
  Clock::TimePoint deadline = clock.Now() + seconds(60);
  std::thread waiter([&] {
    std::unique_lock lock(mu);
    while (clock.Now() < deadline) clock.WaitUntil(cv, lock, deadline);
  });
  clock.Advance(seconds(30));
  clock.Advance(seconds(30));
  waiter.join();  // hangs (and the test times out) if a wakeup is lost
  EXPECT_GE(clock.Now(), deadline);
  clock.RemoveWaker(handle);
}

}  // namespace
}  // namespace vtenant::kube

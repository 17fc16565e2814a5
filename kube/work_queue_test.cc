#include "kube/work_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "base/eventually.h"
#include "kube/testing/fake_clock.h"
#include "kube/testing/log_capture.h"

namespace vtenant::kube {

// The delay heap's size, stale entries included: what it holds in memory.
class WorkQueuePeer {
 public:
  static size_t WaitingEntries(const WorkQueue& queue) {
    std::lock_guard guard(queue.mu_);
    return queue.waiting_.size();
  }
};

namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

// A queue on a fake clock with client-go's per-item backoff and no bucket, so
// delays are exactly 5ms, 10ms, 20ms...
class WorkQueueTest : public ::testing::Test {
 protected:
  static WorkQueue::Options FakeTimeOptions(FakeClock* clock) {
    WorkQueue::Options options;
    options.clock = clock;
    options.rate_limiter =
        std::make_unique<ItemExponentialFailureRateLimiter>(milliseconds(5), seconds(1000));
    return options;
  }

  FakeClock clock_;
  WorkQueue queue_{FakeTimeOptions(&clock_)};
};

TEST_F(WorkQueueTest, HandsOutKeysInOrderAndOnce) {
  queue_.Add("a");
  queue_.Add("b");
  queue_.Add("a");
  EXPECT_EQ(queue_.Len(), 2u);
  EXPECT_EQ(queue_.Get(), "a");
  EXPECT_EQ(queue_.Get(), "b");
  EXPECT_EQ(queue_.Len(), 0u);
}

TEST_F(WorkQueueTest, KeyAddedWhileProcessingIsQueuedAgainAfterDone) {
  queue_.Add("a");
  ASSERT_EQ(queue_.Get(), "a");
  queue_.Add("a");
  queue_.Add("a");
  EXPECT_EQ(queue_.Len(), 0u) << "a key being processed must not be handed to a second worker";
  queue_.Done("a");
  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(queue_.Get(), "a");
  queue_.Done("a");
  EXPECT_EQ(queue_.Len(), 0u);
}

TEST_F(WorkQueueTest, DoneWithoutReAddDoesNotRequeue) {
  queue_.Add("a");
  ASSERT_EQ(queue_.Get(), "a");
  queue_.Done("a");
  EXPECT_EQ(queue_.Len(), 0u);
}

TEST_F(WorkQueueTest, AddAfterWaitsForTheClock) {
  queue_.AddAfter("a", milliseconds(10));
  EXPECT_EQ(queue_.Len(), 0u);
  clock_.Advance(milliseconds(9));
  EXPECT_EQ(queue_.Len(), 0u);
  clock_.Advance(milliseconds(1));
  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(queue_.Get(), "a");
}

TEST_F(WorkQueueTest, AddAfterNonPositiveDelayAddsNow) {
  queue_.AddAfter("a", Clock::Duration::zero());
  queue_.AddAfter("b", -seconds(1));
  EXPECT_EQ(queue_.Len(), 2u);
}

TEST_F(WorkQueueTest, AddAfterKeepsTheEarlierTime) {
  queue_.AddAfter("later-first", seconds(10));
  queue_.AddAfter("later-first", seconds(1));
  queue_.AddAfter("earlier-first", seconds(1));
  queue_.AddAfter("earlier-first", seconds(10));
  clock_.Advance(seconds(1));
  EXPECT_EQ(queue_.Len(), 2u);
  ASSERT_TRUE(queue_.Get().has_value());
  ASSERT_TRUE(queue_.Get().has_value());
  queue_.Done("later-first");
  queue_.Done("earlier-first");
  // The superseded 10s entries must not bring the keys back.
  clock_.Advance(seconds(10));
  EXPECT_EQ(queue_.Len(), 0u);
}

TEST_F(WorkQueueTest, DelayedKeyAlreadyQueuedIsNotDuplicated) {
  queue_.Add("a");
  queue_.AddAfter("a", seconds(1));
  clock_.Advance(seconds(1));
  EXPECT_EQ(queue_.Len(), 1u);
}

TEST_F(WorkQueueTest, AKeyHandedOutNoLongerWaits) {
  // A recheck an hour ahead, then an event: the reconcile the event causes
  // decides afresh, so the hour-old wait must not bring the key back (a
  // deleted object's key would otherwise outlive it by the whole delay).
  queue_.AddAfter("a", hours(1));
  queue_.Add("a");
  ASSERT_EQ(queue_.Get(), "a");
  queue_.Done("a");
  clock_.Advance(hours(1));
  EXPECT_EQ(queue_.Len(), 0u);
}

TEST_F(WorkQueueTest, ARecheckAskedWhileProcessingSurvivesDone) {
  // What Controller does with a reconcile's requeue_after.
  queue_.Add("a");
  ASSERT_EQ(queue_.Get(), "a");
  queue_.AddAfter("a", seconds(1));
  queue_.Done("a");
  EXPECT_EQ(queue_.Len(), 0u);
  clock_.Advance(seconds(1));
  EXPECT_EQ(queue_.Len(), 1u);
}

TEST_F(WorkQueueTest, ChurnOfShortLivedKeysKeepsTheDelayHeapBounded) {
  // Each key is asked to come back in an hour and then handed out at once,
  // as a pod that is created and deleted well within its recheck time.
  constexpr int kKeys = 10000;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "pod-" + std::to_string(i);
    queue_.AddAfter(key, hours(1));
    queue_.Add(key);
    ASSERT_EQ(queue_.Get(), key);
    queue_.Done(key);
  }
  EXPECT_LT(WorkQueuePeer::WaitingEntries(queue_), 128u) << "stale entries must be compacted away";
  // One key still waiting is kept through the compactions around it.
  queue_.AddAfter("kept", hours(2));
  for (int i = 0; i < 1000; ++i) {
    const std::string key = "more-" + std::to_string(i);
    queue_.AddAfter(key, hours(1));
    queue_.Add(key);
    ASSERT_EQ(queue_.Get(), key);
    queue_.Done(key);
  }
  clock_.Advance(hours(2));
  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(queue_.Get(), "kept");
}

TEST_F(WorkQueueTest, DelayedKeysComeOutInTimeOrder) {
  queue_.AddAfter("third", seconds(3));
  queue_.AddAfter("first", seconds(1));
  queue_.AddAfter("second", seconds(2));
  clock_.Advance(seconds(5));
  EXPECT_EQ(queue_.Get(), "first");
  EXPECT_EQ(queue_.Get(), "second");
  EXPECT_EQ(queue_.Get(), "third");
}

TEST_F(WorkQueueTest, BlockedGetWakesWhenTheClockReachesADelayedKey) {
  std::optional<std::string> got;
  std::thread worker([&] { got = queue_.Get(); });
  queue_.AddAfter("a", hours(1));
  clock_.Advance(hours(1));
  worker.join();  // hangs (and the test times out) if the wakeup is lost
  EXPECT_EQ(got, "a");
}

TEST_F(WorkQueueTest, BlockedGetWakesOnAdd) {
  std::optional<std::string> got;
  std::thread worker([&] { got = queue_.Get(); });
  queue_.Add("a");
  worker.join();
  EXPECT_EQ(got, "a");
}

TEST_F(WorkQueueTest, AddRateLimitedBacksOffExponentiallyUntilForgotten) {
  // Each failure doubles the delay before the key is back: 5ms, 10ms, 20ms.
  int failures = 0;
  for (milliseconds delay : {milliseconds(5), milliseconds(10), milliseconds(20)}) {
    queue_.AddRateLimited("a");
    EXPECT_EQ(queue_.NumRequeues("a"), ++failures);
    clock_.Advance(delay - milliseconds(1));
    EXPECT_EQ(queue_.Len(), 0u) << "failure " << failures;
    clock_.Advance(milliseconds(1));
    ASSERT_EQ(queue_.Get(), "a") << "failure " << failures;
    queue_.Done("a");
  }

  queue_.Forget("a");
  EXPECT_EQ(queue_.NumRequeues("a"), 0);
  queue_.AddRateLimited("a");  // back to 5ms
  clock_.Advance(milliseconds(5));
  EXPECT_EQ(queue_.Len(), 1u);
}

TEST_F(WorkQueueTest, ShutDownStillHandsOutQueuedKeysThenStops) {
  queue_.Add("a");
  queue_.Add("b");
  queue_.AddAfter("delayed", seconds(1));
  queue_.ShutDown();
  EXPECT_TRUE(queue_.ShuttingDown());
  queue_.Add("c");
  queue_.AddRateLimited("d");
  EXPECT_EQ(queue_.NumRequeues("d"), 0);
  clock_.Advance(seconds(1));
  EXPECT_EQ(queue_.Get(), "a");
  EXPECT_EQ(queue_.Get(), "b");
  EXPECT_EQ(queue_.Get(), std::nullopt);
}

TEST_F(WorkQueueTest, ReopenAcceptsKeysAgainAfterShutDown) {
  queue_.ShutDown();
  queue_.Add("dropped");
  queue_.Reopen();
  EXPECT_FALSE(queue_.ShuttingDown());
  queue_.Add("kept");
  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(queue_.Get(), "kept");
}

TEST_F(WorkQueueTest, ShutDownWakesBlockedGet) {
  std::optional<std::string> got = "unset";
  std::thread worker([&] { got = queue_.Get(); });
  queue_.ShutDown();
  worker.join();
  EXPECT_EQ(got, std::nullopt);
}

TEST_F(WorkQueueTest, ShutDownWithDrainWaitsForKeysInFlight) {
  queue_.Add("a");
  ASSERT_EQ(queue_.Get(), "a");
  std::atomic<bool> done_called = false;
  std::atomic<bool> drained_before_done = false;
  std::thread drainer([&] {
    queue_.ShutDownWithDrain();
    drained_before_done = !done_called;
  });
  // Let the drainer block while "a" is in flight. Whatever the interleaving,
  // it must not return before Done.
  std::this_thread::yield();
  done_called = true;
  queue_.Done("a");
  drainer.join();
  EXPECT_FALSE(drained_before_done);
}

// A queue on `clock` that retries a failed key with no delay, so retries
// do not need the clock to move.
WorkQueue::Options RetryAtOnceOptions(FakeClock* clock) {
  WorkQueue::Options options;
  options.clock = clock;
  options.rate_limiter = std::make_unique<ItemExponentialFailureRateLimiter>(
      Clock::Duration::zero(), Clock::Duration::zero());
  return options;
}

TEST(WorkQueueRunTest, ProcessesEveryKeyRetriesFailuresAndNeverOverlapsAKey) {
  FakeClock clock;
  WorkQueue queue(RetryAtOnceOptions(&clock));

  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, int> calls;
  std::set<std::string> in_flight;
  std::vector<std::string> overlaps;
  int successes = 0;
  constexpr int kKeys = 50;

  auto reconcile = [&](const std::string& key) -> Status {
    int attempt;
    {
      std::lock_guard guard(mu);
      if (!in_flight.insert(key).second) overlaps.push_back(key);
      attempt = ++calls[key];
    }
    Status status;
    if (key == "flaky" && attempt <= 2) status = Unavailable("try again");
    // Re-adding itself while processing must cause exactly one more run.
    if (key == "readds" && attempt == 1) queue.Add("readds");
    std::lock_guard guard(mu);
    in_flight.erase(key);
    if (key == "throws" && attempt == 1) throw std::runtime_error("boom");
    if (status.ok()) ++successes;
    cv.notify_all();
    return status;
  };

  std::thread runner([&] { queue.Run(4, reconcile); });
  for (int i = 0; i < kKeys; ++i) queue.Add("key" + std::to_string(i));
  queue.Add("flaky");
  queue.Add("throws");
  queue.Add("readds");
  {
    // flaky succeeds once, throws once, readds twice.
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return successes == kKeys + 4; });
  }
  queue.ShutDownWithDrain();
  runner.join();

  EXPECT_TRUE(overlaps.empty()) << "processed concurrently: " << overlaps.front();
  for (int i = 0; i < kKeys; ++i) EXPECT_EQ(calls["key" + std::to_string(i)], 1) << i;
  EXPECT_EQ(calls["flaky"], 3);
  EXPECT_EQ(calls["throws"], 2);
  EXPECT_EQ(calls["readds"], 2);
  EXPECT_EQ(queue.NumRequeues("flaky"), 0) << "success must forget the backoff";
  EXPECT_EQ(queue.NumRequeues("throws"), 0);
}

TEST(WorkQueueRunTest, AFirstConflictIsNotAWarningButOneThatComesBackIs) {
  FakeClock clock;
  WorkQueue queue(RetryAtOnceOptions(&clock));
  LogCapture log;
  std::atomic<int> calls = 0;
  std::thread runner([&] {
    queue.Run(1, [&](const std::string& key) -> Status {
      const int call = ++calls;
      if (key == "node" && call <= 2) return Status(StatusCode::kConflict, "modified");
      if (key == "other" && call == 4) return Unavailable("away");
      if (call >= 5) queue.ShutDown();
      return Status::Ok();
    });
  });
  queue.Add("node");
  ASSERT_TRUE(Eventually([&] { return calls == 3; }));
  queue.Add("other");
  runner.join();
  EXPECT_EQ(log.Count(google::GLOG_INFO, "reconciling node failed (0 earlier"), 1);
  EXPECT_EQ(log.Count(google::GLOG_WARNING, "reconciling node failed (1 earlier"), 1);
  EXPECT_EQ(log.Count(google::GLOG_WARNING, "reconciling node failed (0 earlier"), 0);
  EXPECT_EQ(log.Count(google::GLOG_WARNING, "reconciling other failed (0 earlier"), 1)
      << "other failures are warnings from the first";
}

TEST(WorkQueueRunTest, ReturnsAfterShutDownWithNoWork) {
  WorkQueue queue;
  std::thread runner([&] { queue.Run(3, [](const std::string&) { return Status::Ok(); }); });
  queue.ShutDown();
  runner.join();  // hangs (and the test times out) if idle workers miss the shutdown
}

}  // namespace
}  // namespace vtenant::kube

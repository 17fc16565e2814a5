#include "syncer/event_rate_limit.h"

#include <gtest/gtest.h>

#include "kube/testing/fake_clock.h"

namespace vtenant::syncer {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using Duration = kube::Clock::Duration;

TEST(EventRateLimitTest, TenantBucketTakesABurstThenItsRate) {
  kube::FakeClock clock;
  EventRateLimit limit({.qps = 2, .burst = 3, .per_object_burst = 100}, clock);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(limit.Take("Pod/ml/p" + std::to_string(i)), Duration::zero()) << i;
  }
  // Empty: the next waits half a second, whichever object it is for, and
  // asking again takes nothing (the wait does not grow).
  EXPECT_EQ(limit.Take("Pod/ml/q"), milliseconds(500));
  EXPECT_EQ(limit.Take("Pod/ml/r"), milliseconds(500));
  clock.Advance(milliseconds(500));
  EXPECT_EQ(limit.Take("Pod/ml/q"), Duration::zero());
  EXPECT_GT(limit.Take("Pod/ml/r"), Duration::zero());
}

TEST(EventRateLimitTest, OneObjectsStormDoesNotSpendTheTenantsBucket) {
  kube::FakeClock clock;
  EventRateLimit limit(
      {.qps = 100, .burst = 100, .per_object_burst = 5, .per_object_refill = minutes(5)}, clock);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(limit.Take("Pod/ml/storm"), Duration::zero()) << i;
  // The storming pod waits for its own bucket (one every 5 minutes)...
  EXPECT_EQ(limit.Take("Pod/ml/storm"), minutes(5));
  // ...while another pod's Events still go at once.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(limit.Take("Pod/ml/quiet"), Duration::zero()) << i;
  clock.Advance(minutes(5));
  EXPECT_EQ(limit.Take("Pod/ml/storm"), Duration::zero());
  EXPECT_EQ(limit.Take("Pod/ml/storm"), minutes(5));
}

TEST(EventRateLimitTest, QuietObjectsAreForgottenWithoutLosingTheirBurst) {
  kube::FakeClock clock;
  EventRateLimit limit(
      {.qps = 0, .per_object_burst = 2, .per_object_refill = seconds(10), .max_objects = 2}, clock);
  EXPECT_EQ(limit.Take("a"), Duration::zero());
  EXPECT_EQ(limit.Take("a"), Duration::zero());
  EXPECT_EQ(limit.Take("b"), Duration::zero());
  EXPECT_GT(limit.Take("a"), Duration::zero());
  clock.Advance(seconds(20));
  // Both buckets are full again; a third object makes room by forgetting
  // them, and "a" starts full as it would have been.
  EXPECT_EQ(limit.Take("c"), Duration::zero());
  EXPECT_EQ(limit.Take("a"), Duration::zero());
  EXPECT_EQ(limit.Take("a"), Duration::zero());
  EXPECT_GT(limit.Take("a"), Duration::zero());
}

}  // namespace
}  // namespace vtenant::syncer

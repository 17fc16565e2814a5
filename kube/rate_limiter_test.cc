#include "kube/rate_limiter.h"

#include <gtest/gtest.h>

#include <chrono>

#include "kube/testing/fake_clock.h"

namespace vtenant::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ItemExponentialFailureRateLimiterTest, DoublesPerFailureOfEachItem) {
  ItemExponentialFailureRateLimiter limiter(milliseconds(5), seconds(1000));
  EXPECT_EQ(limiter.When("a"), milliseconds(5));
  EXPECT_EQ(limiter.When("a"), milliseconds(10));
  EXPECT_EQ(limiter.When("a"), milliseconds(20));
  EXPECT_EQ(limiter.When("b"), milliseconds(5));  // items back off independently
  EXPECT_EQ(limiter.NumRequeues("a"), 3);
  EXPECT_EQ(limiter.NumRequeues("b"), 1);
  EXPECT_EQ(limiter.NumRequeues("never"), 0);
}

TEST(ItemExponentialFailureRateLimiterTest, CapsAtMaxWithoutOverflow) {
  ItemExponentialFailureRateLimiter limiter(milliseconds(5), seconds(1000));
  Clock::Duration last{};
  for (int i = 0; i < 200; ++i) last = limiter.When("a");
  EXPECT_EQ(last, seconds(1000));
  // 5ms * 2^17 = 655.36s is the last step below the cap.
  ItemExponentialFailureRateLimiter fresh(milliseconds(5), seconds(1000));
  for (int i = 0; i < 17; ++i) (void)fresh.When("a");
  EXPECT_EQ(fresh.When("a"), milliseconds(655'360));
  EXPECT_EQ(fresh.When("a"), seconds(1000));
}

TEST(ItemExponentialFailureRateLimiterTest, ForgetStartsAfresh) {
  ItemExponentialFailureRateLimiter limiter(milliseconds(5), seconds(1000));
  (void)limiter.When("a");
  (void)limiter.When("a");
  limiter.Forget("a");
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
  EXPECT_EQ(limiter.When("a"), milliseconds(5));
}

TEST(BucketRateLimiterTest, BurstThenQueuesBehindTheDebt) {
  FakeClock clock;
  BucketRateLimiter limiter(10, 3, clock);
  EXPECT_EQ(limiter.When("a"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("b"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("c"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("d"), milliseconds(100));
  EXPECT_EQ(limiter.When("e"), milliseconds(200));
  // The debt stays until time pays it: 100ms refills one token of the two owed.
  clock.Advance(milliseconds(100));
  EXPECT_EQ(limiter.When("f"), milliseconds(200));
  // A long quiet spell refills the bucket, but only up to the burst.
  clock.Advance(seconds(10));
  EXPECT_EQ(limiter.When("g"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("h"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("i"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("j"), milliseconds(100));
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
}

TEST(BucketRateLimiterTest, NonPositiveQpsDoesNotLimit) {
  FakeClock clock;
  BucketRateLimiter limiter(0, 1, clock);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(limiter.When("a"), Clock::Duration::zero());
}

TEST(DefaultControllerRateLimiterTest, SlowerOfBackoffAndBucket) {
  FakeClock clock;
  std::unique_ptr<RateLimiter> limiter = NewDefaultControllerRateLimiter(clock);
  EXPECT_EQ(limiter->When("a"), milliseconds(5));
  EXPECT_EQ(limiter->When("a"), milliseconds(10));
  EXPECT_EQ(limiter->NumRequeues("a"), 2);
  // 98 more failures of other items use up the burst of 100...
  for (int i = 0; i < 98; ++i) (void)limiter->When("other" + std::to_string(i));
  // ...so a fresh item waits for the bucket (100ms at 10 qps), not 5ms.
  EXPECT_EQ(limiter->When("fresh"), milliseconds(100));
  limiter->Forget("a");
  EXPECT_EQ(limiter->NumRequeues("a"), 0);
}

}  // namespace
}  // namespace vtenant::kube

#include "kube/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace vtenant::kube {

ItemExponentialFailureRateLimiter::ItemExponentialFailureRateLimiter(Clock::Duration base_delay,
                                                                     Clock::Duration max_delay)
    : base_delay_(base_delay), max_delay_(max_delay) {}

Clock::Duration ItemExponentialFailureRateLimiter::When(const std::string& item) {
  int exponent;
  {
    std::lock_guard guard(mu_);
    exponent = failures_[item]++;
  }
  // In floating point, because base * 2^exponent overflows integers long
  // before a persistently failing item stops failing.
  double delay = static_cast<double>(base_delay_.count()) * std::pow(2.0, exponent);
  if (!(delay < static_cast<double>(max_delay_.count()))) return max_delay_;
  return Clock::Duration(static_cast<Clock::Duration::rep>(delay));
}

void ItemExponentialFailureRateLimiter::Forget(const std::string& item) {
  std::lock_guard guard(mu_);
  failures_.erase(item);
}

int ItemExponentialFailureRateLimiter::NumRequeues(const std::string& item) const {
  std::lock_guard guard(mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(double qps, int burst, const Clock& clock)
    : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock.Now()) {}

Clock::Duration BucketRateLimiter::When(const std::string&) {
  if (qps_ <= 0) return Clock::Duration::zero();
  std::lock_guard guard(mu_);
  Clock::TimePoint now = clock_.Now();
  if (now > last_) {
    double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
  // Reserve a token even when none is left: the debt is what later callers
  // wait behind, so they queue in order instead of all retrying at once.
  tokens_ -= 1;
  if (tokens_ >= 0) return Clock::Duration::zero();
  return std::chrono::duration_cast<Clock::Duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

Clock::Duration MaxOfRateLimiter::When(const std::string& item) {
  Clock::Duration longest = Clock::Duration::zero();
  // Every limiter must see the failure, not just until the longest is found.
  for (auto& limiter : limiters_) longest = std::max(longest, limiter->When(item));
  return longest;
}

void MaxOfRateLimiter::Forget(const std::string& item) {
  for (auto& limiter : limiters_) limiter->Forget(item);
}

int MaxOfRateLimiter::NumRequeues(const std::string& item) const {
  int most = 0;
  for (const auto& limiter : limiters_) most = std::max(most, limiter->NumRequeues(item));
  return most;
}

std::unique_ptr<RateLimiter> NewDefaultControllerRateLimiter(const Clock& clock) {
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(
      std::chrono::milliseconds(5), std::chrono::seconds(1000)));
  limiters.push_back(std::make_unique<BucketRateLimiter>(10.0, 100, clock));
  return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

}  // namespace vtenant::kube

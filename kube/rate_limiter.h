// Rate limiters that decide how long a failed work-queue item waits before it
// is retried, like client-go's workqueue rate limiters.
//
// The default for controllers is the slower of a per-item exponential backoff
// (5ms doubling up to 1000s: one bad object backs off on its own) and an
// overall token bucket (10 qps, burst 100: a storm of failures cannot hammer
// the API server).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kube/clock.h"

namespace vtenant::kube {

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;

  // How long `item` should wait before its next attempt. Each call counts as
  // one more failure of `item`.
  virtual Clock::Duration When(const std::string& item) = 0;

  // Stops tracking `item` (it succeeded): its next failure starts afresh.
  virtual void Forget(const std::string& item) = 0;

  // How many failures of `item` are being counted.
  virtual int NumRequeues(const std::string& item) const = 0;
};

// base * 2^failures, capped at max_delay. Thread-safe.
class ItemExponentialFailureRateLimiter final : public RateLimiter {
 public:
  ItemExponentialFailureRateLimiter(Clock::Duration base_delay, Clock::Duration max_delay);

  Clock::Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) const override;

 private:
  const Clock::Duration base_delay_;
  const Clock::Duration max_delay_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, int> failures_;
};

// An overall token bucket: `qps` tokens a second, at most `burst` saved up.
// When() reserves the next token and returns how long until it is due, so
// delays grow when many items fail at once. It tracks no items: Forget does
// nothing and NumRequeues is 0. qps <= 0 means no limit. Thread-safe.
class BucketRateLimiter final : public RateLimiter {
 public:
  // `clock` must outlive the limiter.
  BucketRateLimiter(double qps, int burst, const Clock& clock);

  Clock::Duration When(const std::string& item) override;
  void Forget(const std::string&) override {}
  int NumRequeues(const std::string&) const override { return 0; }

 private:
  const double qps_;
  const double burst_;
  const Clock& clock_;
  std::mutex mu_;
  double tokens_;
  Clock::TimePoint last_;
};

// The longest delay of several limiters; NumRequeues is the largest of theirs.
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters);

  Clock::Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) const override;

 private:
  std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// client-go's DefaultControllerRateLimiter: max of exponential (5ms..1000s)
// and a 10 qps / burst 100 bucket on `clock`, which must outlive it.
std::unique_ptr<RateLimiter> NewDefaultControllerRateLimiter(const Clock& clock = DefaultClock());

}  // namespace vtenant::kube

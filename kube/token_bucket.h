// TokenBucket: client-side rate limiting of API requests (client-go's QPS/Burst).
#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

namespace vtenant::kube {

class TokenBucket {
 public:
  // qps <= 0 disables limiting.
  TokenBucket(double qps, int burst)
      : qps_(qps), burst_(std::max(1, burst)), tokens_(burst_), last_(Clock::now()) {}

  // Blocks until a token is available, then takes it.
  void Acquire() {
    if (qps_ <= 0) return;
    std::chrono::duration<double> wait{0};
    {
      std::lock_guard lock(mu_);
      const auto now = Clock::now();
      tokens_ = std::min<double>(
          burst_, tokens_ + qps_ * std::chrono::duration<double>(now - last_).count());
      last_ = now;
      tokens_ -= 1;  // may go negative: callers queue behind each other
      if (tokens_ < 0) wait = std::chrono::duration<double>(-tokens_ / qps_);
    }
    if (wait.count() > 0) std::this_thread::sleep_for(wait);
  }

 private:
  using Clock = std::chrono::steady_clock;
  const double qps_;
  const int burst_;
  double tokens_;
  Clock::time_point last_;
  std::mutex mu_;
};

}  // namespace vtenant::kube

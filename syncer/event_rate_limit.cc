#include "syncer/event_rate_limit.h"

#include <algorithm>

namespace vtenant::syncer {

EventRateLimit::EventRateLimit(EventRateLimitOptions options, const kube::Clock& clock)
    : options_(options),
      tenant_seconds_per_token_(options.qps > 0 ? 1.0 / options.qps : 0),
      object_seconds_per_token_(
          std::max(1e-3, std::chrono::duration<double>(options.per_object_refill).count())),
      clock_(clock),
      tenant_{static_cast<double>(options.burst), clock.Now()} {}

void EventRateLimit::Refill(Bucket& b, double seconds_per_token, double burst,
                            kube::Clock::TimePoint now) {
  const double elapsed = std::chrono::duration<double>(now - b.last).count();
  b.tokens = std::min(burst, b.tokens + elapsed / seconds_per_token);
  b.last = now;
}

kube::Clock::Duration EventRateLimit::Wait(const Bucket& b, double seconds_per_token) {
  if (b.tokens >= 1) return kube::Clock::Duration::zero();
  const double seconds = std::max((1 - b.tokens) * seconds_per_token, 1e-3);
  return std::chrono::duration_cast<kube::Clock::Duration>(std::chrono::duration<double>(seconds));
}

void EventRateLimit::ForgetFull(kube::Clock::TimePoint now) {
  for (auto it = objects_.begin(); it != objects_.end();) {
    Refill(it->second, object_seconds_per_token_, options_.per_object_burst, now);
    it = it->second.tokens >= options_.per_object_burst ? objects_.erase(it) : std::next(it);
  }
}

kube::Clock::Duration EventRateLimit::Take(std::string_view object) {
  std::lock_guard lock(mu_);
  const kube::Clock::TimePoint now = clock_.Now();
  const bool tenant_limited = options_.qps > 0;
  if (tenant_limited) Refill(tenant_, tenant_seconds_per_token_, options_.burst, now);
  auto it = objects_.find(object);
  if (it == objects_.end()) {
    if (objects_.size() >= options_.max_objects) ForgetFull(now);
    it = objects_
             .emplace(std::string(object),
                      Bucket{static_cast<double>(options_.per_object_burst), now})
             .first;
  }
  Bucket& own = it->second;
  Refill(own, object_seconds_per_token_, options_.per_object_burst, now);
  kube::Clock::Duration wait = Wait(own, object_seconds_per_token_);
  if (tenant_limited) wait = std::max(wait, Wait(tenant_, tenant_seconds_per_token_));
  if (wait > kube::Clock::Duration::zero()) return wait;
  own.tokens -= 1;
  if (tenant_limited) tenant_.tokens -= 1;
  return kube::Clock::Duration::zero();
}

}  // namespace vtenant::syncer

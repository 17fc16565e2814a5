// EventRateLimit: how fast host Events may reach a tenant's API server, so
// that a storm on the host (a crash-looping container, a scheduler that
// re-explains thousands of pending pods) cannot flood it.
//
// Two token buckets, as a Kubernetes client keeps for the Events it writes:
//   - one for the whole tenant: `qps` writes a second, at most `burst` saved
//     up (a burst of pods starting writes at once, then at `qps`);
//   - one per virtual object: `per_object_burst` writes, one more every
//     `per_object_refill` (client-go's EventSourceObjectSpamFilter: 25, and
//     one every 5 minutes), so one pod's storm does not spend the tenant's.
// A write that finds either bucket empty waits (the caller requeues it for
// the time Take returns); it is never lost, and since a host Event's repeats
// only change its count, a waiting Event is written once, with its latest
// count, when its turn comes.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "kube/clock.h"

namespace vtenant::syncer {

struct EventRateLimitOptions {
  double qps = 10;  // 0 or less: no tenant-wide bucket
  int burst = 50;
  int per_object_burst = 25;
  kube::Clock::Duration per_object_refill = std::chrono::minutes(5);
  // Objects whose buckets are kept; past it, full buckets (objects quiet for
  // a while) are forgotten, which costs nothing since they would start full.
  size_t max_objects = 10000;
};

class EventRateLimit {
 public:
  // `clock` must outlive the limiter.
  EventRateLimit(EventRateLimitOptions options, const kube::Clock& clock);

  // Takes one token from the tenant's bucket and one from `object`'s and
  // returns zero; or, when either is empty, takes none and returns how long
  // until both have one. Thread-safe.
  kube::Clock::Duration Take(std::string_view object);

 private:
  struct Bucket {
    double tokens;
    kube::Clock::TimePoint last;
  };
  // Refills `b` up to `burst`, one token every `seconds_per_token`, to now.
  static void Refill(Bucket& b, double seconds_per_token, double burst, kube::Clock::TimePoint now);
  // How long until `b` holds one token.
  static kube::Clock::Duration Wait(const Bucket& b, double seconds_per_token);
  void ForgetFull(kube::Clock::TimePoint now);

  const EventRateLimitOptions options_;
  const double tenant_seconds_per_token_;
  const double object_seconds_per_token_;
  const kube::Clock& clock_;
  std::mutex mu_;
  Bucket tenant_;
  std::map<std::string, Bucket, std::less<>> objects_;
};

}  // namespace vtenant::syncer

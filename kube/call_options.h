// CallOptions: how long one API call may take and what ends it early.
//
// Every Client call but Watch takes one as its last argument, defaulted, so
// a caller that does not care writes nothing and still gets the client's
// default deadline (RestConfig::timeout for RestClient): no such call
// blocks forever. A watch runs until the server ends it, its handler stops
// it or its Cancellation fires.
#pragma once

#include <algorithm>
#include <optional>

#include "kube/cancellation.h"
#include "kube/clock.h"

namespace vtenant::kube {

struct CallOptions {
  // The call, retries and their backoff included, returns by the earlier of
  // `deadline` (a time on the client's clock) and its start plus `timeout`,
  // with Timeout if it has no answer by then.
  std::optional<Clock::TimePoint> deadline;
  // Zero: the client's default (RestConfig::timeout), so a deadline alone
  // can shorten a call but not lengthen it; set this to allow longer.
  Clock::Duration timeout = Clock::Duration::zero();
  // When it fires, the call returns Cancelled promptly, from a request in
  // flight or a retry's backoff alike. Null: not cancellable. Must outlive
  // the call.
  Cancellation* cancel = nullptr;
  // Whether a 429 TooManyRequests answer is tried again under the client's
  // retry policy. An eviction a PodDisruptionBudget refuses is a 429 that
  // means "not now": an answer for the caller to act on, not a rate limit
  // to wait out inside the call, so its callers turn this off.
  bool retry_too_many_requests = true;
};

// When a call that starts at `now` must end: the earlier of `call.deadline`
// and now + (call.timeout, or `default_timeout` when that is zero).
inline Clock::TimePoint CallDeadline(const CallOptions& call, Clock::TimePoint now,
                                     Clock::Duration default_timeout) {
  const Clock::Duration timeout =
      call.timeout > Clock::Duration::zero() ? call.timeout : default_timeout;
  const Clock::TimePoint end = now + timeout;
  return call.deadline ? std::min(*call.deadline, end) : end;
}

}  // namespace vtenant::kube

// What a call does against a server that accepted its connection and never
// answers, for the test doubles that play one (FakeClient::HoldCalls,
// FakeTransport::Hang), so that both hang alike.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string_view>

#include "base/status.h"
#include "kube/cancellation.h"
#include "kube/clock.h"

namespace vtenant::kube {

// With the double's `lock` held: waits while `hung` is true, until `cancel`
// fires (Cancelled), `deadline` passes on `clock` (Timeout) or `hung` turns
// false (OK). A call already cancelled or past its deadline fails at once,
// hung or not, as it would against a real server. `*waiting` counts the call
// for its whole wait, so a test polling it does not see it flicker while the
// call wakes to look at the time.
//
// The double notifies `cv` when `hung` changes and when its clock moves, and
// the caller registers a wake-up of `cv` on `cancel` before taking `lock`
// (an already-cancelled Cancellation runs it at once, and it takes the lock).
Status WaitWhileHung(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                     const bool& hung, int* waiting, const Clock& clock, Clock::TimePoint deadline,
                     const Cancellation* cancel, std::string_view what);

}  // namespace vtenant::kube

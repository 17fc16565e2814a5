// LeaderElector: one active replica among many, over a coordination.k8s.io/v1
// Lease, with client-go's leader election semantics.
//
// Every candidate reads the Lease each retry period. The holder renews it;
// the others wait until it has not changed for leaseDurationSeconds as
// measured on their own clock (so clocks need not agree across machines),
// then take it over. Writes carry the Lease's resourceVersion, so when two
// candidates race exactly one wins and the other gets a 409 Conflict.
//
// A leader that cannot renew for renew_deadline stops leading; because
// renew_deadline < lease_duration it stops before anyone else may start.
// Every call a renewal makes carries the deadline renewed_at +
// renew_deadline (CallOptions), so a hung API server cannot hold a renewal
// past the moment leadership ends: on_stopped_leading runs then, not when the
// server answers. A leader stopped gracefully first runs on_stopped_leading,
// then clears the holder of the Lease, so the next candidate takes over at
// its next retry instead of waiting for expiry.
//
// Callbacks run on the elector's thread, one at a time. They should return
// quickly: on_started_leading starts the leader's work elsewhere (threads,
// a WorkQueue), on_stopped_leading stops it and returns once it has stopped.
// After losing the lease the elector becomes a candidate again; a program
// that prefers client-go's behaviour exits from on_stopped_leading.
//
// Typical use:
//   Result<std::unique_ptr<LeaderElector>> elector = LeaderElector::Create(client, {
//       .lease_namespace = "vtenant-system", .lease_name = "vtenant-scheduler",
//       .identity = hostname,
//       .callbacks = {.on_started_leading = [&] { scheduler.Start(); },
//                     .on_stopped_leading = [&] { scheduler.Stop(); }}});
//   (*elector)->Run();
//   ...
//   (*elector)->Stop();  // hands over at once
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/status.h"
#include "kube/client.h"
#include "kube/clock.h"

namespace vtenant::kube {

struct LeaderCallbacks {
  // This elector became the leader.
  std::function<void()> on_started_leading;
  // This elector stopped leading (lost the lease, or Stop while leading).
  std::function<void()> on_stopped_leading;
  // The Lease was seen with a new holder (this elector included).
  std::function<void(const std::string& identity)> on_new_leader;
};

struct LeaderElectionConfig {
  std::string lease_namespace = "default";
  std::string lease_name;
  // Unique among the candidates, e.g. the pod name.
  std::string identity;
  // How long a Lease that stopped changing is respected by other candidates.
  // Written to the Lease in whole seconds (rounded up), at least one.
  Clock::Duration lease_duration = std::chrono::seconds(15);
  // How long the leader keeps trying to renew before it gives up leading;
  // also the deadline of each attempt to acquire the Lease and of the
  // release on Stop.
  Clock::Duration renew_deadline = std::chrono::seconds(10);
  // How often the leader renews. A candidate waits this long plus a random
  // jitter of up to 1.2 times it (1 to 2.2 periods) between attempts to
  // acquire, as client-go's JitterFactor does.
  Clock::Duration retry_period = std::chrono::seconds(2);
  // Clear the Lease's holder on Stop so a successor need not wait for expiry.
  // Turn off only to simulate a crashed leader.
  bool release_on_stop = true;
  LeaderCallbacks callbacks;
  // Times retries, expiry and the renew deadline. Must outlive the elector.
  Clock* clock = &DefaultClock();
};

class LeaderElector {
 public:
  // Checks the config as client-go does: lease name, identity and clock set,
  // and lease_duration > renew_deadline > 1.2 * retry_period > 0;
  // InvalidArgument naming what is wrong otherwise. `client` must outlive
  // the elector.
  static Result<std::unique_ptr<LeaderElector>> Create(Client& client, LeaderElectionConfig config);

  // Stops.
  ~LeaderElector();

  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Starts competing for the Lease on a thread of its own; returns at once.
  // Fails with FailedPrecondition when called twice or after Stop.
  Status Run();

  // Stops competing. A request in flight is cancelled. If leading:
  // on_stopped_leading runs, then the Lease is released (unless
  // release_on_stop is off), which takes at most renew_deadline even if the
  // server hangs. Must not be called from a callback. Idempotent.
  void Stop();

  // Whether this elector leads now: it holds the Lease and its last
  // successful renewal started less than renew_deadline ago. Turns false on
  // its own when renewals stall, even before on_stopped_leading runs.
  bool IsLeader() const;

  // The holder of the Lease when last read ("" if none or never read).
  std::string CurrentLeader() const;

  const std::string& identity() const { return config_.identity; }

 private:
  enum class Attempt { kHeld, kHeldByOther, kFailed };

  LeaderElector(Client& client, LeaderElectionConfig config);

  void Loop();
  // One read-and-write of the Lease, every call ending by `deadline`:
  // acquires it, renews it, or learns who holds it.
  Attempt TryAcquireOrRenew(Clock::TimePoint deadline);
  // Clears the holder if it is still this elector.
  void Release();
  // Remembers the Lease's record; restarts the expiry clock when it changed.
  void Observe(const Object& lease);
  // Sleeps for `d` on the clock; true if Stop was called.
  bool Sleep(Clock::Duration d);
  // Sleeps until the clock reads `until`; true if Stop was called.
  bool SleepUntilTime(Clock::TimePoint until);

  Client& client_;
  const LeaderElectionConfig config_;
  Cancellation stop_;  // fired by Stop: ends a request in flight
  const int64_t lease_seconds_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  bool stopping_ = false;
  bool leading_ = false;
  Clock::TimePoint renewed_at_;   // start of the last successful renewal
  std::string observed_record_;   // holder + renewTime + transitions as last read
  Clock::TimePoint observed_at_;  // when observed_record_ last changed
  std::string observed_holder_;
  int64_t observed_duration_seconds_ = 0;
  std::string reported_leader_;  // last identity given to on_new_leader
  uint64_t waker_ = 0;
  std::thread thread_;
};

}  // namespace vtenant::kube

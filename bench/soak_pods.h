// PodTracker: for the soak benchmark, when each virtual pod was created (its
// create call returned to the team's client) and when its host pod was
// bound, Running and gone, from one watch of the host's synced pods (label
// vtenant.io/managed-by=vtenant-syncer, all namespaces), matched by their
// vtenant.io/virtual-uid annotation.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::bench {

class PodTracker {
 public:
  using Clock = std::chrono::steady_clock;

  explicit PodTracker(kube::Client& host) : host_(host) {}
  // Stops the watch.
  ~PodTracker();

  // Lists the host's synced pods and watches them on a thread of its own
  // (listing again whenever the watch cannot resume). Returns once the
  // first list is in.
  Status Start();
  void Stop();

  // The virtual pod `uid` was created at `at`.
  void Created(const std::string& uid, Clock::time_point at);

  // Waits until the host pod of every one of `uids` is Running, or until
  // `deadline`; returns how many are not.
  int WaitRunning(const std::vector<std::string>& uids, Clock::time_point deadline);
  // Waits until the host pod of every one of `uids` is gone (or never was),
  // or until `deadline`; returns how many are still there.
  int WaitGone(const std::vector<std::string>& uids, Clock::time_point deadline);

  struct Latency {
    Clock::time_point created;
    double ms;         // created -> host pod bound (spec.nodeName set)
    double synced_ms;  // created -> host pod first seen (the syncer's part of ms)
  };
  // Created and bound: how long it took. nullopt if either was not seen.
  std::optional<Latency> BoundLatency(const std::string& uid) const;

  // Drops what is kept of `uids` (their cycle is over).
  void Forget(const std::vector<std::string>& uids);

  // How often the watch ended with an error and was started again.
  int watch_restarts() const { return watch_restarts_; }

 private:
  struct Pod {
    std::optional<Clock::time_point> created, seen_at, bound;
    bool seen = false;     // a host pod was seen
    bool running = false;  // phase Running
    bool gone = false;     // deleted after it was seen
  };
  void Observe(const rapidjson::Value& pod, bool deleted);
  Status Relist(std::string* resource_version);
  void Run(std::string resource_version);
  // Waits until `waiting` holds for none of the pods of `uids` (nullptr for
  // one not seen yet), or until `deadline`; returns for how many it holds.
  int WaitForNone(const std::vector<std::string>& uids, Clock::time_point deadline,
                  const std::function<bool(const Pod*)>& waiting);

  kube::Client& host_;
  kube::Cancellation cancel_;
  std::thread thread_;
  std::atomic<int> watch_restarts_{0};
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, Pod> pods_;  // by virtual uid
};

}  // namespace vtenant::bench

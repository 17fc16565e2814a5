// PendingEvents: one Event per pending pod saying why it waits, repeated
// only when the reason changes or `repeat_after` has passed, so a pod that
// waits an hour does not get 3,600 Events. Events are written by a thread of
// their own, at most `per_second` a second, so 2,000 pending pods neither
// stall a cycle nor crowd the binds out of the client's rate limit.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "kube/client.h"
#include "kube/event_recorder.h"

namespace vtenant::scheduler {

struct PendingEventsOptions {
  std::chrono::seconds repeat_after = std::chrono::minutes(5);
  int per_second = 20;
};

class PendingEvents {
 public:
  // `lookup` returns the pod object for a key (from the informer cache).
  PendingEvents(kube::EventRecorder& recorder,
                std::function<kube::ObjectPtr(const std::string& key)> lookup,
                PendingEventsOptions options = {});
  // Drops what is not yet written.
  ~PendingEvents();

  // Reports that `key` is pending for `reason` at `now`; queues an Event
  // (reason Unschedulable) when it is news. Returns whether it queued one.
  bool Report(const std::string& key, const std::string& reason,
              std::chrono::steady_clock::time_point now);

  // Forgets pods not in `still_pending`, so a pod pending again later is news.
  void Retain(const std::set<std::string>& still_pending);

  // Blocks until every queued Event is written (tests).
  void Drain();

 private:
  struct Last {
    std::string reason;
    std::chrono::steady_clock::time_point at;
  };
  void Work();

  kube::EventRecorder& recorder_;
  const std::function<kube::ObjectPtr(const std::string&)> lookup_;
  const PendingEventsOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Last> last_;
  std::deque<std::pair<std::string, std::string>> queue_;
  bool writing_ = false;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace vtenant::scheduler

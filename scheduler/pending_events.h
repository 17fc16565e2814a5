// PendingEvents: one Event per pending pod saying why it waits, repeated
// only when the reason changes or `repeat_after` has passed, so a pod that
// waits an hour does not get 3,600 Events (or API writes).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "kube/client.h"
#include "kube/event_recorder.h"

namespace vtenant::scheduler {

class PendingEvents {
 public:
  // `lookup` returns the pod object for a key (from the informer cache).
  PendingEvents(kube::EventRecorder& recorder,
                std::function<kube::ObjectPtr(const std::string& key)> lookup,
                std::chrono::seconds repeat_after = std::chrono::minutes(5))
      : recorder_(recorder), lookup_(std::move(lookup)), repeat_after_(repeat_after) {}

  // Reports that `key` is pending for `reason` at `now`; records an Event
  // (reason Unschedulable) when it is news. Returns whether it recorded one.
  bool Report(const std::string& key, const std::string& reason,
              std::chrono::steady_clock::time_point now);

  // Forgets pods not in `still_pending`, so a pod pending again later is news.
  void Retain(const std::set<std::string>& still_pending);

 private:
  struct Last {
    std::string reason;
    std::chrono::steady_clock::time_point at;
  };
  kube::EventRecorder& recorder_;
  const std::function<kube::ObjectPtr(const std::string&)> lookup_;
  const std::chrono::seconds repeat_after_;
  std::mutex mu_;
  std::map<std::string, Last> last_;
};

}  // namespace vtenant::scheduler

// PendingEvents: one Event per waiting object saying why it waits, repeated
// only when the reason changes or `repeat_after` has passed, so a pod that
// waits an hour does not get 3,600 Events. For pods (the default options)
// the Event is a Warning Unschedulable, and with each the pod's condition
// PodScheduled becomes False, reason Unschedulable, with the same message,
// as kube-scheduler and KAI write it: `kubectl get pod`, cluster
// autoscalers and KAI's own tooling read it there, and the syncer carries it
// back to the team. The scheduler keeps a second one for PodGroups that are
// not ready (Normal NotReady, as KAI). Both are written by a thread of
// their own, at most `per_second` objects a second, so 2,000 pending pods
// neither stall a cycle nor crowd the binds out of the client's rate limit.
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
  // The Events' type and reason, and whether the objects are pods whose
  // PodScheduled condition says the same.
  const char* event_type = "Warning";
  const char* event_reason = "Unschedulable";
  bool mark_pods = true;
};

class PendingEvents {
 public:
  // `lookup` returns the object for a key (from the informer cache);
  // `client` writes the pods' condition.
  PendingEvents(kube::Client& client, kube::EventRecorder& recorder,
                std::function<kube::ObjectPtr(const std::string& key)> lookup,
                PendingEventsOptions options = {});
  // Drops what is not yet written.
  ~PendingEvents();

  // Reports that `key` waits for `reason` at `now`; queues an Event when it
  // is news. Returns whether it queued one.
  bool Report(const std::string& key, const std::string& reason,
              std::chrono::steady_clock::time_point now);

  // Forgets objects not in `still_pending`, so one waiting again later is news.
  void Retain(const std::set<std::string>& still_pending);

  // Blocks until every queued Event is written (tests).
  void Drain();

 private:
  struct Last {
    std::string reason;
    std::chrono::steady_clock::time_point at;
  };
  void Work();
  // Sets `pod`'s PodScheduled condition to False, reason Unschedulable,
  // `message`, unless it says that already or the pod is bound; its
  // transition time is kept while it stays False. The patch carries `pod`'s
  // resourceVersion, so a pod bound since is never marked: on a conflict
  // the pod is read again and, when it is the same pod, `refreshed` tried
  // once more.
  void MarkUnschedulable(const rapidjson::Value& pod, const std::string& message,
                         bool refreshed = false);

  kube::Client& client_;
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

#include "scheduler/pending_events.h"

#include <glog/logging.h>

#include "base/rfc3339.h"
#include "kube/conditions.h"
#include "kube/json_builder.h"

namespace vtenant::scheduler {

PendingEvents::PendingEvents(kube::Client& client, kube::EventRecorder& recorder,
                             std::function<kube::ObjectPtr(const std::string& key)> lookup,
                             PendingEventsOptions options)
    : client_(client), recorder_(recorder), lookup_(std::move(lookup)), options_(options) {
  worker_ = std::thread([this] { Work(); });
}

PendingEvents::~PendingEvents() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

bool PendingEvents::Report(const std::string& key, const std::string& reason,
                           std::chrono::steady_clock::time_point now) {
  {
    std::lock_guard lock(mu_);
    auto it = last_.find(key);
    if (it != last_.end() && it->second.reason == reason &&
        now - it->second.at < options_.repeat_after)
      return false;
    last_[key] = {reason, now};
    queue_.emplace_back(key, reason);
  }
  cv_.notify_all();
  return true;
}

void PendingEvents::Retain(const std::set<std::string>& still_pending) {
  std::lock_guard lock(mu_);
  for (auto it = last_.begin(); it != last_.end();)
    it = still_pending.contains(it->first) ? std::next(it) : last_.erase(it);
}

void PendingEvents::Drain() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return (queue_.empty() && !writing_) || stopping_; });
}

void PendingEvents::Work() {
  const auto gap = std::chrono::microseconds(1000000 / std::max(1, options_.per_second));
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    auto [key, reason] = std::move(queue_.front());
    queue_.pop_front();
    // A newer reason for the same object supersedes this one.
    auto it = last_.find(key);
    if (it == last_.end() || it->second.reason != reason) continue;
    writing_ = true;
    lock.unlock();
    if (kube::ObjectPtr object = lookup_(key); object != nullptr) {
      recorder_.Record(*object, options_.event_type, options_.event_reason, reason);
      if (options_.mark_pods) MarkUnschedulable(*object, reason);
    }
    std::this_thread::sleep_for(gap);
    lock.lock();
    writing_ = false;
    cv_.notify_all();
  }
}

void PendingEvents::MarkUnschedulable(const rapidjson::Value& pod, const std::string& message,
                                      bool refreshed) {
  if (!kube::GetString(pod, {"spec", "nodeName"}).empty()) return;
  std::string since = FormatRfc3339(std::chrono::system_clock::now());
  if (std::optional<kube::Condition> c = kube::FindCondition(pod, "PodScheduled");
      c && c->status == "False") {
    if (c->reason == "Unschedulable" && c->message == message) return;
    if (!c->last_transition_time.empty()) since = c->last_transition_time;
  }
  const std::string patch = kube::ToJson(kube::BuildJson(kube::JsonObject{
      {"metadata",
       kube::JsonObject{{"uid", kube::Uid(pod)}, {"resourceVersion", kube::ResourceVersion(pod)}}},
      {"status", kube::JsonObject{{"conditions", kube::JsonArray{kube::JsonObject{
                                                     {"type", "PodScheduled"},
                                                     {"status", "False"},
                                                     {"reason", "Unschedulable"},
                                                     {"message", message},
                                                     {"lastProbeTime", nullptr},
                                                     {"lastTransitionTime", since}}}}}}}));
  Status written = client_
                       .Patch(kube::resources::kPods, kube::Namespace(pod), kube::Name(pod),
                              kube::PatchType::kStrategicMerge, patch, {.subresource = "status"})
                       .status();
  if (written.code() == StatusCode::kConflict && !refreshed) {
    Result<kube::Object> fresh =
        client_.Get(kube::resources::kPods, kube::Namespace(pod), kube::Name(pod));
    if (fresh.ok() && kube::Uid(*fresh) == kube::Uid(pod)) {
      MarkUnschedulable(*fresh, message, /*refreshed=*/true);
    }
    return;
  }
  // Gone, or changed again: the pod's next Event (a new reason, or
  // repeat_after later) tries again.
  if (!written.ok() && written.code() != StatusCode::kConflict &&
      written.code() != StatusCode::kNotFound) {
    LOG(WARNING) << "pod " << kube::KeyOf(pod)
                 << ": condition PodScheduled: " << written.ToString();
  }
}

}  // namespace vtenant::scheduler

#include "scheduler/pending_events.h"

namespace vtenant::scheduler {

PendingEvents::PendingEvents(kube::EventRecorder& recorder,
                             std::function<kube::ObjectPtr(const std::string& key)> lookup,
                             PendingEventsOptions options)
    : recorder_(recorder), lookup_(std::move(lookup)), options_(options) {
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
    // A newer reason for the same pod supersedes this one.
    auto it = last_.find(key);
    if (it == last_.end() || it->second.reason != reason) continue;
    writing_ = true;
    lock.unlock();
    if (kube::ObjectPtr pod = lookup_(key); pod != nullptr)
      recorder_.Warning(*pod, "Unschedulable", reason);
    std::this_thread::sleep_for(gap);
    lock.lock();
    writing_ = false;
    cv_.notify_all();
  }
}

}  // namespace vtenant::scheduler

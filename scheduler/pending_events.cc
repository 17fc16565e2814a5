#include "scheduler/pending_events.h"

namespace vtenant::scheduler {

bool PendingEvents::Report(const std::string& key, const std::string& reason,
                           std::chrono::steady_clock::time_point now) {
  {
    std::lock_guard lock(mu_);
    auto it = last_.find(key);
    if (it != last_.end() && it->second.reason == reason && now - it->second.at < repeat_after_)
      return false;
    last_[key] = {reason, now};
  }
  kube::ObjectPtr pod = lookup_(key);
  if (pod == nullptr) return false;
  recorder_.Warning(*pod, "Unschedulable", reason);
  return true;
}

void PendingEvents::Retain(const std::set<std::string>& still_pending) {
  std::lock_guard lock(mu_);
  for (auto it = last_.begin(); it != last_.end();)
    it = still_pending.contains(it->first) ? std::next(it) : last_.erase(it);
}

}  // namespace vtenant::scheduler

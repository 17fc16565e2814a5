// Cancellation: a one-shot signal that stops blocking work (watch streams,
// waits) promptly on shutdown.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

namespace vtenant::kube {

class Cancellation {
 public:
  // Fires every registered callback once; later registrations fire at once.
  void Cancel() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard lock(mu_);
      if (cancelled_) return;
      cancelled_ = true;
      callbacks.swap(callbacks_);
    }
    cv_.notify_all();
    for (auto& cb : callbacks) cb();
  }

  bool cancelled() const {
    std::lock_guard lock(mu_);
    return cancelled_;
  }

  // Runs `cb` on Cancel(), or now if already cancelled. Callbacks must be cheap.
  void OnCancel(std::function<void()> cb) {
    {
      std::lock_guard lock(mu_);
      if (!cancelled_) {
        callbacks_.push_back(std::move(cb));
        return;
      }
    }
    cb();
  }

  // Sleeps for `d` or until cancelled; returns true if cancelled.
  bool WaitFor(std::chrono::milliseconds d) const {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, d, [&] { return cancelled_; });
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool cancelled_ = false;
  std::vector<std::function<void()>> callbacks_;
};

}  // namespace vtenant::kube

// Cancellation: a one-shot signal that stops blocking work (watch streams,
// waits) promptly on shutdown.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace vtenant::kube {

class Cancellation {
 public:
  // Fires every registered callback once; later registrations fire at once.
  void Cancel() {
    std::map<uint64_t, std::function<void()>> callbacks;
    {
      std::lock_guard lock(mu_);
      if (cancelled_) return;
      cancelled_ = true;
      callbacks.swap(callbacks_);
    }
    cv_.notify_all();
    for (auto& [id, cb] : callbacks) cb();
  }

  bool cancelled() const {
    std::lock_guard lock(mu_);
    return cancelled_;
  }

  // Runs `cb` on Cancel(), or now if already cancelled. Callbacks must be
  // cheap. Returns a handle for Unregister (0 when `cb` already ran).
  uint64_t OnCancel(std::function<void()> cb) {
    {
      std::lock_guard lock(mu_);
      if (!cancelled_) {
        callbacks_.emplace(++next_id_, std::move(cb));
        return next_id_;
      }
    }
    cb();
    return 0;
  }

  // Drops a callback that is no longer needed (its stream ended), so a
  // long-lived Cancellation does not collect one per watch. Idempotent. A
  // Cancel() on another thread may already have taken the callback and still
  // be running it when this returns, so a callback must not point into state
  // that dies with its registration: it captures shared or weak pointers.
  void Unregister(uint64_t handle) {
    std::lock_guard lock(mu_);
    callbacks_.erase(handle);
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
  uint64_t next_id_ = 0;
  std::map<uint64_t, std::function<void()>> callbacks_;
};

// Unregisters a callback when the scope that needed it ends.
class CancellationRegistration {
 public:
  CancellationRegistration(Cancellation* cancel, std::function<void()> cb)
      : cancel_(cancel), handle_(cancel != nullptr ? cancel->OnCancel(std::move(cb)) : 0) {}
  ~CancellationRegistration() {
    if (cancel_ != nullptr && handle_ != 0) cancel_->Unregister(handle_);
  }
  CancellationRegistration(const CancellationRegistration&) = delete;
  CancellationRegistration& operator=(const CancellationRegistration&) = delete;

 private:
  Cancellation* cancel_;
  uint64_t handle_;
};

}  // namespace vtenant::kube

// RecordingReconciler: a Reconciler for tests of controllers and managers.
#pragma once

#include <condition_variable>
#include <mutex>
#include <set>
#include <string>

#include "kube/controller.h"

namespace vtenant::kube {

// Remembers every key it reconciled; while blocked, holds each reconcile
// (counted as started, not finished) until released.
class RecordingReconciler : public Reconciler {
 public:
  Result<ReconcileResult> Reconcile(const std::string& key) override {
    {
      std::unique_lock lock(mu_);
      ++started_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return !block_; });
      keys_.insert(key);
      ++finished_;
    }
    cv_.notify_all();
    return ReconcileResult{};
  }
  void Block() {
    std::lock_guard lock(mu_);
    block_ = true;
  }
  void Release() {
    {
      std::lock_guard lock(mu_);
      block_ = false;
    }
    cv_.notify_all();
  }
  std::set<std::string> Keys() {
    std::lock_guard lock(mu_);
    return keys_;
  }
  bool Saw(const std::string& key) {
    std::lock_guard lock(mu_);
    return keys_.count(key) == 1;
  }
  int Started() {
    std::lock_guard lock(mu_);
    return started_;
  }
  int Finished() {
    std::lock_guard lock(mu_);
    return finished_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool block_ = false;
  int started_ = 0;
  int finished_ = 0;
  std::set<std::string> keys_;
};

}  // namespace vtenant::kube

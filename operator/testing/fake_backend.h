// FakeBackend: a ControlPlaneBackend whose control plane is whatever the
// test says, for unit tests of the reconciler. Ensure records the request
// and answers Ready (or Starting after SetReady(false), or the error of
// SetError) at endpoint 127.0.0.1:<6443 + tenants ensured so far>, so a
// tenant's endpoint moves when another tenant is first ensured. Remove
// always answers done. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "operator/control_plane_backend.h"

namespace vtenant::op {

class FakeBackend final : public ControlPlaneBackend {
 public:
  Result<ControlPlaneStatus> Ensure(const ControlPlaneRequest& request) override {
    std::lock_guard lock(mu_);
    ++ensures_[request.spec.name];
    last_[request.spec.name] = request;
    if (!error_.ok()) return error_;
    ControlPlaneStatus s;
    s.endpoint = "https://127.0.0.1:" + std::to_string(6443 + ensures_.size());
    s.control_plane = ready_ ? ComponentStatus{true, "Running", "fake control plane runs"}
                             : ComponentStatus{false, "Starting", "fake control plane starts"};
    s.syncer = ready_ ? ComponentStatus{true, "Running", "fake syncer runs"}
                      : ComponentStatus{false, "ControlPlaneNotReady", "waiting"};
    running_.insert(request.spec.name);
    return s;
  }
  Result<bool> Remove(const std::string& tenant, const std::string&) override {
    std::lock_guard lock(mu_);
    ++removes_[tenant];
    running_.erase(tenant);
    return true;
  }
  void SetChangeNotifier(std::function<void(const std::string&)>) override {}

  void SetReady(bool ready) {
    std::lock_guard lock(mu_);
    ready_ = ready;
  }
  void SetError(Status error) {
    std::lock_guard lock(mu_);
    error_ = std::move(error);
  }
  bool Running(const std::string& tenant) {
    std::lock_guard lock(mu_);
    return running_.contains(tenant);
  }
  int Removes(const std::string& tenant) {
    std::lock_guard lock(mu_);
    return removes_[tenant];
  }
  ControlPlaneRequest Last(const std::string& tenant) {
    std::lock_guard lock(mu_);
    return last_.at(tenant);
  }

 private:
  std::mutex mu_;
  bool ready_ = true;
  Status error_;
  std::map<std::string, int> ensures_;
  std::map<std::string, int> removes_;
  std::map<std::string, ControlPlaneRequest> last_;
  std::set<std::string> running_;
};

}  // namespace vtenant::op

// FakeConnector: hands out one in-memory "virtual cluster" per endpoint.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "kube/testing/fake_client.h"
#include "operator/virtual_cluster_connector.h"

namespace vtenant::op {

class FakeConnector final : public VirtualClusterConnector {
 public:
  Result<std::shared_ptr<kube::Client>> Connect(const kube::RestConfig& config) override {
    std::lock_guard lock(mu_);
    if (!error_.ok()) return error_;
    auto& c = clusters_[config.server];
    if (!c) c = std::make_shared<kube::FakeClient>();
    last_config_ = config;
    return std::shared_ptr<kube::Client>(c);
  }
  std::shared_ptr<kube::FakeClient> Cluster(const std::string& endpoint) {
    std::lock_guard lock(mu_);
    auto& c = clusters_[endpoint];
    if (!c) c = std::make_shared<kube::FakeClient>();
    return c;
  }
  kube::RestConfig last_config() {
    std::lock_guard lock(mu_);
    return last_config_;
  }
  void SetError(Status error) {
    std::lock_guard lock(mu_);
    error_ = std::move(error);
  }

 private:
  std::mutex mu_;
  Status error_;
  kube::RestConfig last_config_;
  std::map<std::string, std::shared_ptr<kube::FakeClient>> clusters_;
};

}  // namespace vtenant::op

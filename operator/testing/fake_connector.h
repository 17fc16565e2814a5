// FakeConnector: hands out one in-memory "virtual cluster" per endpoint,
// whose TokenRequest API answers "virtual-token-1", "virtual-token-2", ...
// expiring in 2100 (so never renewed for its expiry in a test).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "operator/virtual_cluster_connector.h"

namespace vtenant::op {

class FakeConnector final : public VirtualClusterConnector {
 public:
  Result<std::shared_ptr<kube::Client>> Connect(const kube::RestConfig& config) override {
    std::lock_guard lock(mu_);
    if (!error_.ok()) return error_;
    last_config_ = config;
    return std::shared_ptr<kube::Client>(ClusterLocked(config.server));
  }
  std::shared_ptr<kube::FakeClient> Cluster(const std::string& endpoint) {
    std::lock_guard lock(mu_);
    return ClusterLocked(endpoint);
  }
  int tokens_issued() const { return tokens_issued_; }
  kube::RestConfig last_config() {
    std::lock_guard lock(mu_);
    return last_config_;
  }
  void SetError(Status error) {
    std::lock_guard lock(mu_);
    error_ = std::move(error);
  }

 private:
  std::shared_ptr<kube::FakeClient> ClusterLocked(const std::string& endpoint) {
    auto& c = clusters_[endpoint];
    if (c) return c;
    c = std::make_shared<kube::FakeClient>();
    c->HandleSubresource(
        "serviceaccounts", "token",
        [this](std::string_view, std::string_view,
               const rapidjson::Value&) -> Result<kube::Object> {
          const int n = ++tokens_issued_;
          return kube::BuildJson(kube::JsonObject{
              {"status", kube::JsonObject{{"token", "virtual-token-" + std::to_string(n)},
                                          {"expirationTimestamp", "2100-01-01T00:00:00Z"}}}});
        });
    return c;
  }

  std::mutex mu_;
  std::atomic<int> tokens_issued_{0};
  Status error_;
  kube::RestConfig last_config_;
  std::map<std::string, std::shared_ptr<kube::FakeClient>> clusters_;
};

}  // namespace vtenant::op

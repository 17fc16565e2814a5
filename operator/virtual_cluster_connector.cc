#include "operator/virtual_cluster_connector.h"

#include "kube/rest_client.h"

namespace vtenant::op {

Result<std::shared_ptr<kube::Client>> RestVirtualClusterConnector::Connect(
    const kube::RestConfig& config) {
  kube::RestConfig c = config;
  // A virtual API server that is starting or gone should show in the
  // tenant's conditions quickly, not hold a worker for 30 s.
  c.timeout = std::chrono::seconds(5);
  c.user_agent = "vtenant-operator";
  // A renewed certificate or CA, or a new port, is a new key.
  const std::string key = c.server + "\n" + c.ca_pem + c.client_certificate_pem;
  std::lock_guard lock(mu_);
  if (auto it = clients_.find(key); it != clients_.end()) return it->second;
  VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> client, kube::RestClient::Create(c));
  // Stale entries (deleted tenants, renewed certificates) are few; drop
  // them all now and then rather than track them.
  if (clients_.size() >= 512) clients_.clear();
  std::shared_ptr<kube::Client> shared(std::move(client));
  clients_[key] = shared;
  return shared;
}

}  // namespace vtenant::op

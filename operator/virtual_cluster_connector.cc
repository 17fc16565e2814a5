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
  VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> client, kube::RestClient::Create(c));
  return std::shared_ptr<kube::Client>(std::move(client));
}

}  // namespace vtenant::op

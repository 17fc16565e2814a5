// VirtualClusterConnector: a client of a tenant's virtual API server.
//
// The reconciler installs what each virtual cluster needs (KAI's PodGroup
// CRD, RBAC bindings, the syncer's ServiceAccount and token) with the
// operator's own client certificate. Injected so unit tests hand out
// in-memory clients.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"
#include "kube/client.h"
#include "kube/rest_config.h"

namespace vtenant::op {

class VirtualClusterConnector {
 public:
  virtual ~VirtualClusterConnector() = default;
  // A client for `config`. Fails only on an unusable config; an unreachable
  // server shows when the client is used.
  virtual Result<std::shared_ptr<kube::Client>> Connect(const kube::RestConfig& config) = 0;
};

// Connects over HTTPS with kube::RestClient, each request timing out after
// 5 s (a virtual API server that is starting or gone must show in the
// tenant's conditions, not hold a worker). Clients are kept per server and
// identity (server, CA and client certificate; a bearer token is not part
// of the key): every pass of a tenant's reconcile would otherwise pay a new
// TLS context and handshake, which with twenty tenants starting at once is
// a noticeable share of the operator's CPU. Past 512 kept clients all are
// dropped. Thread-safe.
class RestVirtualClusterConnector final : public VirtualClusterConnector {
 public:
  Result<std::shared_ptr<kube::Client>> Connect(const kube::RestConfig& config) override;

 private:
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<kube::Client>> clients_;  // server + identity → client
};

}  // namespace vtenant::op

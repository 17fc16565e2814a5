// KubeletServer: the kubelet endpoint of a tenant's virtual Nodes, so that
// the team's `kubectl logs`, `exec`, `attach` and `port-forward` work in its
// own cluster, as on vCluster.
//
// The syncer points every virtual Node at this endpoint (node_translator.h:
// its only address, InternalIP, and its kubeletEndpoint port), so the
// virtual API server sends it what it would send a node's kubelet. Each
// connection:
//   1. must present the virtual API server's kubelet-client certificate:
//      signed by the tenant's CA, Common Name kKubeletClientUser (the
//      operator issues it; no credential a team holds or can make is
//      signed by that CA with that name), else the TLS handshake or a 403
//      ends it. A team that points its virtual Node at another tenant's
//      endpoint presents a certificate of its own CA there, and is refused;
//   2. must ask for one of the four kubelet paths (kubelet_request.h), else
//      404;
//   3. must name a pod of this virtual cluster whose host copy the syncer
//      made for it (KubeletPodResolver), else 404: a request can only ever
//      reach this tenant's own host pods;
//   4. is answered by the host API server: the same subresource of the host
//      pod, with the syncer's host credential (its RBAC: pods/log,
//      pods/exec, pods/attach, pods/portforward in the tenant's host
//      namespace), and the two connections are relayed byte for byte, so
//      SPDY and WebSocket upgrades pass through.
// A thread per connection: a team's interactive sessions are few.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "base/status.h"
#include "kube/rest_config.h"
#include "kube/tls_stream.h"
#include "syncer/kubelet_identity.h"

namespace vtenant::syncer {

struct HostPodName {
  std::string ns;
  std::string name;
};

// Which host pod answers for a virtual pod.
class KubeletPodResolver {
 public:
  virtual ~KubeletPodResolver() = default;
  // The host copy of virtual pod `ns`/`name`. NotFound, with a message in
  // the team's names, when the virtual cluster has no such pod or the
  // syncer made no host copy of it.
  virtual Result<HostPodName> Resolve(std::string_view ns, std::string_view name) const = 0;
};

struct KubeletServerOptions {
  std::string address = "127.0.0.1";  // numeric IPv4
  int port = 0;                       // 0: any free port (see port())
  std::string certificate_pem;        // the endpoint's serving certificate
  std::string key_pem;
  std::string client_ca_pem;  // the tenant's CA, which signs the virtual API server's certificate
  kube::RestConfig host;      // the host API server, with the syncer's credential
};

class KubeletServer {
 public:
  // Listens on options.address:port and serves each connection on a thread
  // of its own until destroyed. `resolver` must outlive the server.
  // InvalidArgument for certificates that do not load, a host URL that
  // does not parse or an address that is not numeric IPv4; Unavailable
  // when the address cannot be bound.
  static Result<std::unique_ptr<KubeletServer>> Start(const KubeletServerOptions& options,
                                                      const KubeletPodResolver* resolver);

  // Stops listening, ends every open connection and waits for their threads.
  ~KubeletServer();

  // The port it listens on.
  int port() const { return port_; }

 private:
  KubeletServer() = default;
  void AcceptLoop();
  void Serve(int fd);
  // Answers one request on `client`, relaying it to the host when allowed.
  void Handle(kube::TlsStream& client);

  KubeletServerOptions options_;
  const KubeletPodResolver* resolver_ = nullptr;
  std::string host_authority_;  // the host API server's "host:port", its requests' Host
  std::unique_ptr<kube::TlsServerContext> tls_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mu_;
  // Sockets of connections being served, for the destructor to shut down.
  // A multiset: a number closed by one thread may be reused by the next
  // accept before that thread has erased it.
  std::multiset<int> open_;
  std::condition_variable drained_;
};

}  // namespace vtenant::syncer

// VirtualCluster: a tenant's virtual control plane on loopback for tests and
// benchmarks, a real kube-apiserver and kube-controller-manager of its own,
// stored in a shared etcd under a prefix of its own (one etcd hosts many
// tenants cheaply). Programs never start one this way: the operator builds
// each tenant's control plane through its backends (operator/control_plane_backend.h).
//
// It has no nodes and no kubelet: Deployments and Jobs create pods there and
// the syncer carries them to the host. The controller manager runs without
// the node lifecycle controller, because the virtual Nodes the syncer
// mirrors have no kubelet to heartbeat and would otherwise be tainted and
// their pods evicted, and, as a tenant's control plane runs, without the
// resourceclaim controller: the host makes a pod's claims from the copies
// of its templates (syncer/device_claim_translator.h).
//
//   VT_ASSIGN_OR_RETURN(auto vc, VirtualCluster::Start({.dir = d + "/vc-nlp",
//       .etcd_url = host.etcd().client_url(), .etcd_tls = host.etcd().client_tls(),
//       .name = "nlp"}));
//   vc->client().Create(...);   // as the tenant's cluster-admin
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kube/rest_client.h"
#include "localenv/api_server.h"
#include "localenv/control_plane.h"

namespace vtenant::localenv {

struct VirtualClusterOptions {
  std::string dir;         // pki, kubeconfigs and logs live here
  std::string etcd_url;    // a running etcd, shared with the host or other tenants
  EtcdClientTls etcd_tls;  // the credentials to it (EtcdServer::client_tls())
  std::string name;        // the tenant: etcd prefix /virtual/<name>, kubeconfig name vc-<name>
  bool controller_manager = true;
  int port = 0;                                                  // 0: a free loopback port
  std::vector<std::pair<std::string, std::string>> extra_users;  // see ApiServerOptions
  bool die_with_parent = true;
};

class VirtualCluster {
 public:
  // Starts the API server (<dir>/apiserver) and the controller manager
  // (<dir>/controller-manager) and waits for both; the first error, with
  // what started by then stopped. InvalidArgument without a folder, an etcd
  // URL or a name.
  static Result<std::unique_ptr<VirtualCluster>> Start(const VirtualClusterOptions& options);
  ~VirtualCluster() { Stop(); }

  ApiServer& api_server() { return *plane_.api_server; }
  // An admin (system:masters) client of the virtual API server.
  kube::Client& client() { return *plane_.client; }
  // The admin (system:masters) kubeconfig. The operator's Secret vc-<tenant>
  // carries a revocable team credential instead (operator/certificates.h).
  std::string kubeconfig_path() const { return plane_.api_server->kubeconfig_path(); }

  // Stops the controller manager, then the API server; the data stays in
  // etcd. Idempotent.
  void Stop();

  // Restarts the API server on the same port and certificates (the
  // controller manager reconnects by itself), as after a crash.
  Status RestartApiServer() { return plane_.api_server->Restart(); }

 private:
  VirtualCluster() = default;
  ControlPlane plane_;
};

}  // namespace vtenant::localenv

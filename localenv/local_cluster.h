// LocalCluster: a whole host cluster on loopback, the way tests, `make demo`
// and the CLI need it: etcd, kube-apiserver, optionally the controller
// manager and the simulated kubelet (kwok), and simulated GPU nodes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kube/rest_client.h"
#include "localenv/api_server.h"
#include "localenv/control_plane.h"
#include "localenv/controller_manager.h"
#include "localenv/etcd_server.h"
#include "localenv/gpu_nodes.h"
#include "localenv/node_agent.h"
#include "localenv/supervisor.h"

namespace vtenant::localenv {

struct LocalClusterOptions {
  std::string dir;                   // all state and logs
  bool controller_manager = true;    // Jobs, garbage collection, namespaces
  bool node_agent = true;            // kwok for simulated nodes
  std::vector<SimulatedNode> nodes;  // registered once the API server is ready
  // YAML files applied once the API server is ready, in order (CRDs are
  // waited for until served), e.g. charts/vtenant/crds/*.yaml.
  std::vector<std::string> manifests;
  std::vector<std::pair<std::string, std::string>> extra_users;  // see ApiServerOptions
  int api_server_port = 0;                                       // 0: a free loopback port
  std::vector<std::string> api_server_args;  // more kube-apiserver flags (the real node's)
  // The ServiceAccount admission plugin (see ApiServerOptions): on where a
  // kubelet runs pods that read their account's token, such as a chart's.
  bool service_account_admission = false;
  bool die_with_parent = true;
};

class LocalCluster {
 public:
  // Starts etcd (<dir>/etcd), the API server (<dir>/host, etcd prefix /host),
  // the controller manager and kwok when asked for, then registers the nodes
  // and applies the manifests. The first error; what started by then is
  // stopped.
  static Result<std::unique_ptr<LocalCluster>> Start(const LocalClusterOptions& options);
  ~LocalCluster() { Stop(); }

  EtcdServer& etcd() { return *etcd_; }
  ApiServer& api_server() { return *plane_.api_server; }
  // An admin client of the host API server.
  kube::Client& client() { return *plane_.client; }
  const std::string& dir() const { return dir_; }

  // Stops every process, newest first. Idempotent.
  void Stop();

  // Hands the processes over to `supervisor` (for `vtenant supervise`),
  // in the order they were started, each with its command and health probe
  // (kwok with none, and restarted after etcd or the API server is); Stop()
  // no longer touches them. The clients stay usable.
  void HandOver(Supervisor& supervisor);

 private:
  LocalCluster() = default;
  std::string dir_;
  std::unique_ptr<EtcdServer> etcd_;
  ControlPlane plane_;
  std::unique_ptr<NodeAgent> node_agent_;
};

}  // namespace vtenant::localenv

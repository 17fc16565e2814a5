// SyncerApp: the vtenant-syncer program, made and run: its two API server
// clients (the host, the Manager's primary cluster, where the Lease lives in
// the tenant's host namespace, the one place the syncer's host credentials
// may write; and the tenant's virtual API server), a kube::Manager with
// /healthz /readyz /metrics, leader election and the graceful shutdown on
// SIGTERM, the Syncer wired into it, the virtual Nodes' kubelet endpoint
// (with --kubelet-address), and the process settings that keep one syncer
// per tenant small. main() parses flags and calls Run.
#pragma once

#include <memory>

#include "base/status.h"
#include "kube/manager.h"
#include "kube/rest_client.h"
#include "syncer/flags.h"
#include "syncer/kubelet_server.h"
#include "syncer/synced_pod_resolver.h"
#include "syncer/syncer.h"

namespace vtenant::syncer {

class SyncerApp {
 public:
  // Waits for the virtual kubeconfig file to appear (the operator writes it
  // late), loads both (an empty host one: the pod's in-cluster account),
  // makes the clients, the Manager and the Syncer, and opens what the flags
  // ask for: the DNS Service and the pods' endpoints, the kubelet endpoint.
  // Fails, saying which, when any of these cannot be made.
  static Result<std::unique_ptr<SyncerApp>> Create(const SyncerFlags& flags);

  // Runs until SIGTERM or SIGINT.
  Status Run();

 private:
  SyncerApp() = default;

  std::unique_ptr<kube::RestClient> virtual_client_;
  std::unique_ptr<kube::RestClient> host_client_;
  std::unique_ptr<kube::Manager> manager_;
  std::unique_ptr<Syncer> syncer_;
  // With --kubelet-address: the virtual Nodes' kubelet endpoint. Declared
  // last, so it stops (and ends its connections) before what it reads.
  std::unique_ptr<SyncedPodResolver> pod_resolver_;
  std::unique_ptr<KubeletServer> kubelet_server_;
};

}  // namespace vtenant::syncer

// The command line of vtenant-syncer (shared contract in the design:
// every flag name here is what the operator passes).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

struct SyncerFlags {
  SyncerConfig config;
  std::string virtual_kubeconfig;
  std::string host_kubeconfig;                  // empty: in-cluster service account
  std::string health_address = "0.0.0.0:8081";  // empty: no endpoint
  bool leader_elect = false;
  // The kubelet endpoint of the virtual Nodes (config.kubelet_address and
  // kubelet_port say where): its serving certificate and key, and the CA
  // that signs the virtual API server's kubelet-client certificate.
  std::string kubelet_tls_cert_file;
  std::string kubelet_tls_key_file;
  std::string kubelet_client_ca_file;
  int pod_workers = 8;
  // Client-side limit on each API server, like client-go's QPS and Burst;
  // qps 0 turns it off.
  double kube_api_qps = 100;
  int kube_api_burst = 200;
  // The pods' endpoints on a node in a network namespace of its own (the
  // local environment's real node; see pod_endpoints.h): the namespace, and
  // the address inside it where the virtual API server is relayed. Empty:
  // none are opened.
  std::string pod_netns;
  std::string pod_api_address;  // "10.87.0.2:6443"
  // ... and where, inside it, the virtual cluster's DNS answers (UDP),
  // behind the host Service vtenant-dns (cluster_dns_service.h).
  std::string pod_dns_address;
  bool help = false;
};

// Parses `args` (without the program name): --flag=value or --flag value;
// --leader-elect and --sync-endpoints alone mean true. InvalidArgument
// naming the flag for an unknown flag, a missing value, a malformed one or
// a missing required flag (--tenant, --virtual-kubeconfig; with
// --kubelet-address, its three file flags; with --pod-api-address or
// --pod-dns-address, --pod-netns), unless --help was asked for.
Result<SyncerFlags> ParseFlags(const std::vector<std::string>& args);

// The --help text: every flag, its default and what it does.
std::string Usage();

}  // namespace vtenant::syncer

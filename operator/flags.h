// The command line of vtenant-operator.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"
#include "operator/tenant.h"

namespace vtenant::op {

struct OperatorFlags {
  std::string kubeconfig;  // "" = $KUBECONFIG, in-cluster, ~/.kube/config
  Backend backend_default = Backend::kProcess;
  std::string state_dir = ".vtenant/operator";
  std::string tools_bin;      // "" = localenv's search (.tools/bin, $PATH)
  std::string syncer_binary;  // "" = next to the operator: ../syncer/vtenant-syncer
  bool no_syncer = false;
  std::string etcd_servers;  // "" = the process backend starts its own
  std::string health_address = "127.0.0.1:8082";
  bool leader_elect = false;
  std::string leader_election_namespace = "vtenant-system";
  std::string leader_election_id = "vtenant-operator";
  // Where the tenants' certificate Secrets (their CA keys) live: the
  // operator's own namespace. "" = $POD_NAMESPACE, else vtenant-system.
  std::string credentials_namespace;
  // How long a team's credential (its kubeconfig) is valid; renewed at half
  // its life, revoked by a rotation.
  std::chrono::seconds tenant_credential_lifetime = std::chrono::hours(24);
  int workers = 8;
  // Process backend: kube-apiservers starting at once; 0 = no limit.
  int starting_apiservers = 5;
  // StatefulSet backend: the images of a tenant's control-plane pod. The API
  // server's and controller manager's are <image_registry>/<component>:<version>.
  std::string syncer_image = "ghcr.io/vtenant/vtenant-syncer:latest";
  std::string image_registry = "registry.k8s.io";
  std::string etcd_image = "registry.k8s.io/etcd:3.6.5-0";
  // The host's vtenant scheduler: every tenant pod's schedulerName on the host.
  std::string scheduler_name = "kai-scheduler";
  // The host cluster's Service range, which every virtual API server is
  // given too, so a virtual Service can take its host copy's cluster IP.
  std::string service_cidr = "10.96.0.0/16";
  // Namespaces no Tenant may take, besides the built-in ones and
  // leader_election_namespace (the operator's own).
  std::vector<std::string> reserved_namespaces;
  // Process backend, on a node in a network namespace of its own (the local
  // environment's real node): the namespace, and the node's address there
  // at which each tenant's syncer relays its virtual API server (and which
  // the pods get as KUBERNETES_SERVICE_HOST and the API server's
  // certificate names). Both or neither.
  std::string pod_netns;
  std::string pod_address;
  bool help = false;
};

// The --help text, every flag with its default.
std::string OperatorUsage();

// Parses the arguments after the program's name with base/flags.h:
// "--flag=value" and "--flag value" both work, booleans take "--flag",
// "--flag=true|false"; -h or --help sets `help` and stops there. Unknown
// flags and bad values are InvalidArgument naming them, as are --workers
// outside 1..256, --starting-apiservers outside 0..1000, a credential
// lifetime under a minute or over a year, and --pod-netns without
// --pod-address or the reverse.
Result<OperatorFlags> ParseOperatorFlags(const std::vector<std::string>& args);

}  // namespace vtenant::op

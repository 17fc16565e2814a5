// The command lines of a tenant's virtual control plane: kube-apiserver,
// kube-controller-manager and vtenant-syncer, rendered in one place for both
// backends.
//
// What the components do is the same wherever they run: the API groups and
// admission plugins a cluster without nodes of its own serves, the
// controllers it runs, what the Tenant allows its pods. Where they run is
// the backend's to say: addresses, ports, file paths, how etcd is reached
// and how the syncer reaches the host. A backend states the latter in a
// ControlPlanePlacement and takes every argument from
// RenderControlPlaneArgs, so the process and StatefulSet backends cannot
// drift apart (a controller one runs and the other lacks).
#pragma once

#include <string>
#include <vector>

#include "operator/control_plane_backend.h"

namespace vtenant::op {

// Where a backend runs a tenant's control plane. Every field is the
// backend's; nothing here is a policy of the Tenant.
struct ControlPlanePlacement {
  // --- kube-apiserver ---
  std::string etcd_servers;  // --etcd-servers
  std::string etcd_prefix;   // --etcd-prefix; "": kube-apiserver's default (/registry)
  // The API server's client certificate at etcd; all empty: etcd without TLS.
  std::string etcd_ca_file;
  std::string etcd_cert_file;
  std::string etcd_key_file;
  // etcd compacts its history itself (--etcd-compaction-interval=0): a
  // shared etcd whose compaction key an API server confined to its prefix
  // may not write.
  bool etcd_compacts_itself = false;
  // The address the API server and the controller manager listen on and
  // the API server advertises; "": all interfaces (a pod).
  std::string bind_address;
  int apiserver_port = 6443;  // --secure-port
  // Folder holding ca.crt, client-ca.crt, apiserver.{crt,key} and sa.{pub,key}.
  std::string pki_dir;
  // The host's Service range (OperatorFlags::service_cidr), the virtual
  // API server's too; the syncer's host copy of a team's Service asks for
  // the Service's own cluster IP from it (syncer/service_translator.h).
  std::string service_cidr;
  // Where the API server keeps what it generates; "": not passed (its
  // serving certificate is given, so nothing is generated).
  std::string apiserver_cert_dir;

  // --- kube-controller-manager ---
  // Its kubeconfig for the virtual API server (also for authentication and
  // authorization delegation).
  std::string kubeconfig;
  int controller_manager_port = 0;          // --secure-port; 0: its default (10257)
  std::string controller_manager_cert_dir;  // its self-signed serving certificate; "": in memory

  // --- vtenant-syncer ---
  std::string syncer_virtual_kubeconfig;  // its credential in the virtual cluster
  std::string syncer_host_kubeconfig;     // "": the pod's own ServiceAccount on the host
  // How the team's pods reach their API server (the virtual `kubernetes`
  // Service's endpoint on the host).
  std::string virtual_service_host;
  int virtual_service_port = 443;
  std::string syncer_health_address;  // --health-address, host:port
  // The syncer's kubelet endpoint for the virtual Nodes (numeric host:port,
  // beside the API server), serving syncer-kubelet.{crt,key} from pki_dir;
  // the API server reaches it with kubelet-client.{crt,key} and verifies it
  // with ca.crt. "": none, and the team's logs and exec do not work.
  std::string syncer_kubelet_address;
  // Where the syncer reads ca.crt and syncer-kubelet.{crt,key}; "": pki_dir.
  // A pod gives the syncer's container those three files alone, not the API
  // server's keys.
  std::string syncer_kubelet_pki_dir;
  // The network namespace of the node the pods run on, and the address
  // there at which the syncer relays the API server to them
  // (syncer/pod_endpoints.h); "": the pods reach virtual_service_host as it is.
  std::string syncer_pod_netns;
  std::string syncer_pod_api_address;
  std::string syncer_pod_dns_address;  // the virtual cluster's DNS there (UDP)
};

// Arguments without the program (argv[0]): the backend names its binary or
// image.
struct ControlPlaneArgs {
  std::vector<std::string> apiserver;
  std::vector<std::string> controller_manager;
  std::vector<std::string> syncer;
};

// The three components' arguments for `request` placed at `placement`.
// Pure. A backend that compares a running process's command line with this
// one (the syncer's) restarts it on any change.
ControlPlaneArgs RenderControlPlaneArgs(const ControlPlaneRequest& request,
                                        const ControlPlanePlacement& placement);

// The syncer's flags that carry what the Tenant allows its pods
// (--scheduler-name, --pod-security, --allowed-privileged-features,
// --node-selector, --tolerations, --allowed-tolerations,
// --allowed-runtime-classes, --allowed-volume-types, --allowed-csi-drivers,
// --allowed-device-classes, --allowed-priority-classes,
// --allowed-service-types), each written out in full so the syncer applies
// no default of its own. Part of RenderControlPlaneArgs' syncer arguments.
std::vector<std::string> SyncerPolicyArgs(const ControlPlaneRequest& request);

// The controllers a virtual cluster's kube-controller-manager runs: what
// workloads inside it need. Nodes, volumes, routes and load balancers
// belong to the host, which the syncer mirrors; the pod garbage collector
// stays: it deletes the pods of a Node the syncer removes (the syncer makes
// a pod's Node before it binds the pod, see syncer/node_syncer.h). The
// claim protection controller stays: the API server puts its finalizer on
// every claim, and without the controller a namespace holding one could
// never be deleted. The resourceclaim controller is left out: a pod's
// claims are made from its templates on the host, where its copy runs
// (syncer/device_claim_translator.h), and one made in the team's cluster
// too would be a second, unused claim.
std::vector<std::string> VirtualClusterControllers();

}  // namespace vtenant::op

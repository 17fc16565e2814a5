// The real node: one node with a real kubelet beside the simulated ones, so that
// pods start processes: containerd (its own config, socket and state in the
// environment's folder), runc, the CNI bridge and host-local plugins,
// kube-proxy (iptables) and the kubelet.
//
// Network rule: every program of the node runs in a network namespace the
// environment creates (NetnsName), whose only interfaces are loopback, a
// veth pair with both ends inside it (the node IP, kNodeIp), and the pods'
// bridge the CNI plugin makes there; pods get namespaces of their own below
// it. Nothing of the node listens on or sends to an address outside that
// namespace. The node and its pods reach the API server, and the API server
// the kubelet and the pods, only through the relays (netns_relay.h), which
// the supervisor runs beside the node: with pods_reach_api_server, pods find
// it as on any cluster, at the `kubernetes` Service (whose one endpoint is
// the pods' relay at the node's address); they find Services by name
// through the host's DNS at the node's address.
//
// Use: RealNodeApiServerArgs() (after WriteRealNodeApiServerFiles()) and
// RealNodeUsers() when starting the host API server, PrepareRealNode() once
// it answers, then start RealNodeComponents() in order under the supervisor,
// ImportRealNodeImages() once containerd runs, and WaitRealNodeReady().
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kube/client.h"
#include "localenv/supervisor.h"

namespace vtenant::localenv {

inline constexpr char kRealNodeName[] = "vtenant-node";
// The node IP, on the veth inside the namespace (the kubelet refuses a
// loopback node IP), and the pods' addresses, on the CNI bridge there.
inline constexpr char kNodeIp[] = "10.87.0.2";
inline constexpr char kPodCidr[] = "10.244.0.0/24";
// The label that marks the real node (kwok manages only simulated ones).
inline constexpr char kRealNodeLabel[] = "vtenant.dev/real-node";

struct RealNodeOptions {
  std::string dir;             // everything of the node: <state>/node
  std::string host_dir;        // the host API server's folder (its pki, kubeconfigs)
  int api_server_port = 0;     // the host API server, on 127.0.0.1
  std::string vtenant_binary;  // runs the relays (`vtenant relay`)
  std::string images_script;   // hack/build-images.py
  // Advertise one simulated GPU (nvidia.com/gpu and the GPU labels of
  // gpu_nodes.h), so that GPU pods land here too.
  bool gpu = false;
  std::string gpu_product = "NVIDIA-L40S";
  int64_t gpu_memory_mib = 46068;
  // Let the node's pods reach the host API server, as every cluster's do,
  // at the `kubernetes` Service (a relay at the node's address, and the
  // Service's EndpointSlice): for a chart's pods (`up --cluster-only`).
  // Off, no pod can reach it at all, a team's included.
  bool pods_reach_api_server = false;
};

// The namespace of the node of the environment in `dir` (the state folder):
// one per environment, so that two environments never share one.
std::string NetnsName(const std::string& state_dir);

// Arguments for the host API server: reach kubelets through the egress
// relay, by their InternalIP, with a client certificate of its own.
std::vector<std::string> RealNodeApiServerArgs(const RealNodeOptions& options);
// Writes the file those arguments name (the egress selector's
// configuration); before the API server starts.
Status WriteRealNodeApiServerFiles(const RealNodeOptions& options);
// The client identities the host API server's PKI must issue ({user,
// group}): the kubelet's, kube-proxy's, the API server's own towards
// kubelets, and the pods' DNS server's (`vtenant cluster-dns`).
std::vector<std::pair<std::string, std::string>> RealNodeUsers();

// The node's configuration files, by path below options.dir: containerd's
// config.toml, the CNI network, the kubelet's and kube-proxy's
// configurations and the API server's egress selector configuration.
std::map<std::string, std::string> RealNodeFiles(const RealNodeOptions& options);

// Creates the namespace of the environment in `state_dir` with its
// addresses, and the cgroup the pods live under, unless they exist (after
// a reboot they do not). Safe to run again.
Status EnsureRealNodeNamespace(const std::string& state_dir);

// Checks the machine's programs (containerd, runc, the CNI plugins,
// iptables, nsenter, ctr: FailedPrecondition naming the missing one) and the
// kubelet and kube-proxy tools, builds the images unless built before,
// writes the configuration files, runs EnsureRealNodeNamespace, binds the
// node's identities (RBAC) and, with pods_reach_api_server, gives the
// `kubernetes` Service its endpoint (forced server-side apply). Safe to run
// again.
Status PrepareRealNode(const RealNodeOptions& options, kube::Client& client);

// The node's programs, in start order: the relays (the host API server for
// the node, the API server's egress), containerd, the kubelet (restarted
// after containerd is), kube-proxy, the host's DNS for the pods (`vtenant
// cluster-dns`) and, with pods_reach_api_server, the relay of the host API
// server for the pods.
std::vector<Component> RealNodeComponents(const RealNodeOptions& options);

// Imports the images hack/build-images.py built (pause and busybox) into
// containerd, once its socket answers; Unavailable when it does not within
// `limit`, Internal when an import fails.
Status ImportRealNodeImages(const RealNodeOptions& options, std::chrono::seconds limit);

// Imports the image tarball `tarball` (`docker save` layout, as
// hack/build-images.py writes) into the containerd of the real node of the
// environment in `state_dir`, under every name the tarball gives it.
// FailedPrecondition when that environment has no running real node.
Status ImportImage(const std::string& state_dir, const std::string& tarball);

// Waits until the node is Ready (Unavailable after `limit`, naming the
// kubelet's log), then (with options.gpu) gives it its GPU labels and status
// capacity and allocatable.
Status WaitRealNodeReady(const RealNodeOptions& options, kube::Client& client,
                         std::chrono::seconds limit);

// Kills every process of the node's pods (the processes in its cgroup),
// for `vtenant down` once the kubelet is stopped: containers outlive
// containerd's shims otherwise. SIGKILL to each; returns how many it
// signalled.
int KillRealNodeContainers(const std::string& state_dir);

// Undoes what stays on the machine after the node's processes end, for
// `vtenant delete`: the mounts under `state_dir` (detached, deepest first),
// the namespace, the cgroup. Only deleting the namespace can fail it; a
// mount or cgroup that will not go is left silently.
Status RemoveRealNode(const std::string& state_dir);

}  // namespace vtenant::localenv

#include "localenv/real_node.h"

#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/file.h"
#include "base/secret_file.h"
#include "kai/names.h"
#include "kube/json_builder.h"
#include "kube/manifest.h"
#include "kube/resource.h"
#include "localenv/command.h"
#include "localenv/netns.h"
#include "localenv/tools.h"

namespace vtenant::localenv {
namespace fs = std::filesystem;

namespace {

constexpr char kNodeUser[] = "system:node:vtenant-node";
constexpr char kProxyUser[] = "system:kube-proxy";
constexpr char kKubeletClientUser[] = "vtenant-kubelet-client";
constexpr char kClusterDnsUser[] = "vtenant-cluster-dns";
constexpr char kNodeGroup[] = "vtenant:real-node";
// Inside the namespace: the veth pair that carries the node IP (both ends
// stay there) and the bridge the CNI plugin makes for the pods.
constexpr char kNodeLink[] = "vtn0";
constexpr char kNodeLinkPeer[] = "vtn1";
constexpr char kBridge[] = "cni0";
constexpr char kClusterCidr[] = "10.244.0.0/16";

// FNV-1a: a name that stays the same for the same folder, build after build.
std::string ShortHash(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char out[17];
  snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(h));
  return std::string(out, 10);
}

std::string StateDirOf(const RealNodeOptions& options) {
  return fs::path(options.dir).parent_path().string();
}

// The cgroup (below each v1 hierarchy's root, or the v2 root) the kubelet
// puts every pod under: one per environment, like the namespace.
std::string CgroupRoot(const std::string& state_dir) { return "/" + NetnsName(state_dir); }

// The cgroup hierarchies mounted under /sys/fs/cgroup: each v1 controller's
// folder, or the one v2 folder.
std::vector<fs::path> CgroupHierarchies() {
  std::vector<fs::path> found;
  std::error_code ec;
  if (fs::exists("/sys/fs/cgroup/cgroup.controllers", ec)) return {"/sys/fs/cgroup"};
  for (const auto& entry : fs::directory_iterator("/sys/fs/cgroup", ec)) {
    if (entry.is_directory() && fs::exists(entry.path() / "cgroup.procs")) {
      found.push_back(entry.path());
    }
  }
  return found;
}

std::string Kubeconfig(const RealNodeOptions& options, const std::string& user) {
  return options.host_dir + "/" + user + ".kubeconfig";
}
std::string ContainerdSocket(const RealNodeOptions& options) {
  return options.dir + "/containerd/containerd.sock";
}
std::string EgressSocket(const RealNodeOptions& options) { return options.dir + "/egress.sock"; }

// `ctr images import` of `tarball` into the containerd at `socket`, in the
// namespace the kubelet's CRI uses.
Status ImportInto(const std::string& socket, const std::string& tarball) {
  VT_ASSIGN_OR_RETURN(CommandResult done,
                      RunCommand({"/usr/bin/ctr", "--address", socket, "--namespace", "k8s.io",
                                  "images", "import", tarball}));
  if (done.exit_code != 0) {
    return Internal("importing " + tarball + " into containerd: " + done.err);
  }
  return Status::Ok();
}

// The tag hack/build-images.py gave the image `name` (it writes
// <images>/<name>.ref next to <name>.tar).
std::string ImageRef(const RealNodeOptions& options, const std::string& name) {
  std::string ref = ReadFileOrEmpty(options.dir + "/images/" + name + ".ref");
  while (!ref.empty() && (ref.back() == '\n' || ref.back() == ' ')) ref.pop_back();
  return ref;
}

std::string ContainerdConfig(const RealNodeOptions& options) {
  const std::string d = options.dir + "/containerd";
  std::ostringstream out;
  out << "version = 2\n"
      << "root = \"" << d << "/root\"\n"
      << "state = \"" << d << "/state\"\n"
      << "[grpc]\n  address = \"" << ContainerdSocket(options) << "\"\n"
      << "[ttrpc]\n  address = \"" << ContainerdSocket(options) << ".ttrpc\"\n"
      << "[debug]\n  address = \"\"\n"
      << "[metrics]\n  address = \"\"\n"
      << "[plugins.\"io.containerd.internal.v1.opt\"]\n  path = \"" << d << "/opt\"\n"
      << "[plugins.\"io.containerd.grpc.v1.cri\"]\n"
      << "  sandbox_image = \"" << ImageRef(options, "pause") << "\"\n"
      << "  netns_mounts_under_state_dir = true\n"
      // Without CAP_SYS_RESOURCE (some containers' root lacks it) runc
      // cannot lower oom_score_adj below the caller's, and every sandbox
      // fails with "can't get final child's PID from pipe: EOF".
      << "  restrict_oom_score_adj = true\n"
      // The streaming server (exec, attach, port-forward) on the
      // namespace's loopback: only the kubelet, in the same namespace,
      // reaches it.
      << "  stream_server_address = \"127.0.0.1\"\n"
      << "  stream_server_port = \"0\"\n"
      << "  [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
      << "    snapshotter = \"overlayfs\"\n"
      << "    default_runtime_name = \"runc\"\n"
      << "    [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
      << "      runtime_type = \"io.containerd.runc.v2\"\n"
      << "      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n"
      << "        SystemdCgroup = false\n"
      << "        Root = \"" << d << "/runc\"\n"
      << "  [plugins.\"io.containerd.grpc.v1.cri\".cni]\n"
      << "    bin_dir = \"/usr/lib/cni\"\n"
      << "    conf_dir = \"" << options.dir << "/cni/conf\"\n";
  return out.str();
}

std::string CniConfig(const RealNodeOptions& options) {
  const kube::JsonObject ipam{
      {"type", "host-local"},
      {"ranges", kube::JsonArray{kube::JsonArray{kube::JsonObject{{"subnet", kPodCidr}}}}},
      {"routes", kube::JsonArray{kube::JsonObject{{"dst", "0.0.0.0/0"}}}},
      {"dataDir", options.dir + "/cni/ipam"}};
  const kube::JsonObject bridge{{"type", "bridge"}, {"bridge", kBridge},   {"isGateway", true},
                                {"ipMasq", false},  {"hairpinMode", true}, {"ipam", ipam}};
  return kube::ToJson(kube::BuildJson(kube::JsonObject{
             {"cniVersion", "0.4.0"}, {"name", "vtenant"}, {"plugins", kube::JsonArray{bridge}}})) +
         "\n";
}

std::string KubeletConfig(const RealNodeOptions& options) {
  const std::string host_pki = options.host_dir + "/pki";
  std::ostringstream out;
  out << "apiVersion: kubelet.config.k8s.io/v1beta1\n"
      << "kind: KubeletConfiguration\n"
      << "address: " << kNodeIp << "\n"
      << "port: 10250\n"
      << "healthzBindAddress: 127.0.0.1\n"
      << "healthzPort: 10248\n"
      << "readOnlyPort: 0\n"
      // cgroup v1 is what some machines have; systemd is not running here.
      << "cgroupDriver: cgroupfs\n"
      << "cgroupRoot: " << CgroupRoot(StateDirOf(options)) << "\n"
      << "failCgroupV1: false\n"
      << "failSwapOn: false\n"
      << "containerRuntimeEndpoint: unix://" << ContainerdSocket(options) << "\n"
      << "authentication:\n"
      << "  anonymous: {enabled: false}\n"
      << "  webhook: {enabled: true}\n"
      << "  x509: {clientCAFile: " << host_pki << "/ca.crt}\n"
      << "authorization: {mode: Webhook}\n"
      << "clusterDomain: cluster.local\n"
      // The host's DNS (`vtenant cluster-dns`), at the node's address.
      << "clusterDNS: [" << kNodeIp
      << "]\n"
      // No resolver of the machine's: a pod's DNS traffic would leave the
      // namespace (it cannot: the namespace has no way out).
      << "resolvConf: \"\"\n"
      << "podCIDR: " << kPodCidr << "\n"
      << "evictionHard: {\"memory.available\": \"100Mi\", \"nodefs.available\": \"1%\","
         " \"imagefs.available\": \"1%\"}\n"
      // The images are imported, not pulled: never collect them.
      << "imageGCHighThresholdPercent: 100\n"
      << "imageGCLowThresholdPercent: 99\n"
      << "serializeImagePulls: false\n"
      << "podLogsDir: " << options.dir << "/kubelet/pod-logs\n"
      << "volumePluginDir: " << options.dir << "/kubelet/volume-plugins\n";
  return out.str();
}

std::string KubeProxyConfig(const RealNodeOptions& options) {
  std::ostringstream out;
  out << "apiVersion: kubeproxy.config.k8s.io/v1alpha1\n"
      << "kind: KubeProxyConfiguration\n"
      << "mode: iptables\n"
      << "hostnameOverride: " << kRealNodeName << "\n"
      << "clusterCIDR: " << kClusterCidr << "\n"
      << "clientConnection: {kubeconfig: \"" << Kubeconfig(options, kProxyUser) << "\"}\n"
      << "healthzBindAddress: 127.0.0.1:10256\n"
      << "metricsBindAddress: 127.0.0.1:10249\n"
      // The machine-wide conntrack sysctls are not the namespace's to set.
      << "conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, "
         "tcpCloseWaitTimeout: 0s}\n"
      << "iptables: {localhostNodePorts: false}\n";
  return out.str();
}

std::string EgressConfig(const RealNodeOptions& options) {
  return "apiVersion: apiserver.k8s.io/v1beta1\n"
         "kind: EgressSelectorConfiguration\n"
         "egressSelections:\n"
         "- name: cluster\n"
         "  connection:\n"
         "    proxyProtocol: HTTPConnect\n"
         "    transport:\n"
         "      uds:\n"
         "        udsName: " +
         EgressSocket(options) + "\n";
}

// The host's `kubernetes` Service's endpoint as the node's pods reach it:
// the pods' API relay at the node's address. The API server runs without an
// endpoint reconciler (it listens on loopback, which a Service endpoint may
// not be), so this slice is the only one.
kube::Object KubernetesEndpointSlice(const RealNodeOptions& options) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "discovery.k8s.io/v1"},
      {"kind", "EndpointSlice"},
      {"metadata",
       kube::JsonObject{{"name", "kubernetes"},
                        {"namespace", "default"},
                        {"labels", kube::JsonObject{{"kubernetes.io/service-name", "kubernetes"},
                                                    {"endpointslice.kubernetes.io/managed-by",
                                                     "vtenant-real-node"}}}}},
      {"addressType", "IPv4"},
      {"endpoints",
       kube::JsonArray{kube::JsonObject{{"addresses", kube::JsonArray{kNodeIp}},
                                        {"conditions", kube::JsonObject{{"ready", true}}}}}},
      {"ports", kube::JsonArray{kube::JsonObject{
                    {"name", "https"}, {"port", options.api_server_port}, {"protocol", "TCP"}}}}});
}

// The node's identities and what they may do: the kubelet as a node, the
// API server towards kubelets as their API admin, the node's DNS as a
// reader of Services and pods. kube-proxy's identity is
// bound by Kubernetes' own bootstrap policy (system:node-proxier).
constexpr char kBindings[] = R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: vtenant-real-node}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:node}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:node:vtenant-node"}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: vtenant-kubelet-api-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:kubelet-api-admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: vtenant-kubelet-client}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "vtenant:cluster-dns"}
rules: [{apiGroups: [""], resources: [services, pods], verbs: [list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "vtenant:cluster-dns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "vtenant:cluster-dns"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: vtenant-cluster-dns}]
)";

Status WriteFile(const std::string& path, const std::string& text) {
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(fs::path(path).parent_path()));
  return WriteSecretFile(path, text);
}

// In the namespace: the veth pair (both ends inside) with the node IP, up,
// and a default route through it, so that nothing is unroutable; there is
// no way out of the namespace, so that route leads nowhere else.
Status ConfigureNamespace(const std::string& netns) {
  const std::string ip = "/usr/sbin/ip";
  Result<CommandResult> links = RunCommand({ip, "-n", netns, "-o", "link", "show", kNodeLink});
  if (!links.ok() || links->exit_code != 0) {
    VT_RETURN_IF_ERROR(RunInNetns(
        netns, {ip, "link", "add", kNodeLink, "type", "veth", "peer", "name", kNodeLinkPeer}));
    VT_RETURN_IF_ERROR(
        RunInNetns(netns, {ip, "addr", "add", std::string(kNodeIp) + "/24", "dev", kNodeLink}));
  }
  VT_RETURN_IF_ERROR(RunInNetns(netns, {ip, "link", "set", kNodeLink, "up"}));
  VT_RETURN_IF_ERROR(RunInNetns(netns, {ip, "link", "set", kNodeLinkPeer, "up"}));
  return RunInNetns(netns, {ip, "route", "replace", "default", "dev", kNodeLink});
}

std::vector<std::string> InNetns(const std::string& netns, std::vector<std::string> argv) {
  std::vector<std::string> full = {"/usr/bin/nsenter", "--net=" + NetnsPath(netns), "--"};
  full.insert(full.end(), argv.begin(), argv.end());
  return full;
}

}  // namespace

std::string NetnsName(const std::string& state_dir) {
  std::string dir = fs::absolute(state_dir).lexically_normal().string();
  if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return "vtenant-" + ShortHash(dir);
}

std::vector<std::string> RealNodeApiServerArgs(const RealNodeOptions& options) {
  const std::string pki = options.host_dir + "/pki";
  return {"--egress-selector-config-file=" + options.dir + "/egress-selector.yaml",
          "--kubelet-preferred-address-types=InternalIP",
          std::string("--kubelet-client-certificate=") + pki + "/" + kKubeletClientUser + ".crt",
          std::string("--kubelet-client-key=") + pki + "/" + kKubeletClientUser + ".key"};
}

Status WriteRealNodeApiServerFiles(const RealNodeOptions& options) {
  return WriteFile(options.dir + "/egress-selector.yaml", EgressConfig(options));
}

std::map<std::string, std::string> RealNodeFiles(const RealNodeOptions& options) {
  return {{"egress-selector.yaml", EgressConfig(options)},
          {"containerd/config.toml", ContainerdConfig(options)},
          {"cni/conf/10-vtenant.conflist", CniConfig(options)},
          {"kubelet/config.yaml", KubeletConfig(options)},
          {"kube-proxy/config.yaml", KubeProxyConfig(options)}};
}

std::vector<std::pair<std::string, std::string>> RealNodeUsers() {
  return {{kNodeUser, "system:nodes"},
          {kProxyUser, kNodeGroup},
          {kKubeletClientUser, kNodeGroup},
          {kClusterDnsUser, kNodeGroup}};
}

Status PrepareRealNode(const RealNodeOptions& options, kube::Client& client) {
  for (const char* program :
       {"/usr/bin/containerd", "/usr/sbin/runc", "/usr/lib/cni/bridge", "/usr/lib/cni/host-local",
        "/usr/sbin/iptables", "/usr/bin/nsenter", "/usr/bin/ctr"}) {
    if (access(program, X_OK) != 0) {
      return FailedPrecondition(std::string(program) +
                                " is missing; hack/install-deps.sh installs the real node's "
                                "packages");
    }
  }
  for (const char* tool : {"kubelet", "kube-proxy"}) {
    VT_RETURN_IF_ERROR(FindTool(tool).status().WithContext(
        "the real node needs it; hack/build-tools.sh kubelet kube-proxy builds it"));
  }
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(options.dir));
  // The images: reproducible tarballs of files this machine has.
  if (!fs::exists(options.dir + "/images/pause.ref")) {
    VT_ASSIGN_OR_RETURN(CommandResult built, RunCommand({"/usr/bin/python3", options.images_script,
                                                         options.dir + "/images"}));
    if (built.exit_code != 0) {
      return Internal("building the images (" + options.images_script + "): " + built.err);
    }
  }
  for (const auto& [path, text] : RealNodeFiles(options)) {
    VT_RETURN_IF_ERROR(WriteFile(options.dir + "/" + path, text));
  }
  VT_RETURN_IF_ERROR(EnsureRealNodeNamespace(StateDirOf(options)));
  VT_RETURN_IF_ERROR(
      kube::ApplyManifest(client, kBindings).WithContext("binding the node's identities"));
  if (!options.pods_reach_api_server) return Status::Ok();
  return client
      .Patch(kube::resources::kEndpointSlices, "default", "kubernetes", kube::PatchType::kApply,
             kube::ToJson(KubernetesEndpointSlice(options)),
             {.field_manager = "vtenant", .force = true})
      .status()
      .WithContext("giving the kubernetes Service its endpoint");
}

Status EnsureRealNodeNamespace(const std::string& state_dir) {
  const std::string netns = NetnsName(state_dir);
  VT_RETURN_IF_ERROR(EnsureNetns(netns).WithContext("creating the node's network namespace"));
  VT_RETURN_IF_ERROR(ConfigureNamespace(netns).WithContext("addressing the node's namespace"));
  // The kubelet insists that its cgroup root exists in every hierarchy.
  const std::string cgroup_root = CgroupRoot(state_dir).substr(1);
  for (const fs::path& hierarchy : CgroupHierarchies()) {
    std::error_code ec;
    fs::create_directories(hierarchy / cgroup_root, ec);
    if (ec) {
      return Internal("creating cgroup " + (hierarchy / cgroup_root).string() + ": " +
                      ec.message());
    }
  }
  return Status::Ok();
}

std::vector<Component> RealNodeComponents(const RealNodeOptions& options) {
  const std::string netns = NetnsName(StateDirOf(options));
  const std::string api = "127.0.0.1:" + std::to_string(options.api_server_port);
  const std::string kubelet = FindTool("kubelet").value_or("kubelet");
  const std::string proxy = FindTool("kube-proxy").value_or("kube-proxy");
  const std::string logs = options.dir + "/logs/";
  std::string labels = std::string(kRealNodeLabel) + "=true";
  std::vector<Component> components = {
      {.name = "node-relay-api",
       .process = {.argv = {options.vtenant_binary, "relay", "--netns", netns, "--listen", api,
                            "--to", api},
                   .log_path = logs + "relay-api.log"}},
      {.name = "node-relay-egress",
       .process = {.argv = {options.vtenant_binary, "relay", "--netns", netns, "--connect-proxy",
                            EgressSocket(options)},
                   .log_path = logs + "relay-egress.log"}},
      {.name = "containerd",
       .process = {.argv = InNetns(netns, {"/usr/bin/containerd", "--config",
                                           options.dir + "/containerd/config.toml"}),
                   .log_path = logs + "containerd.log",
                   // Containers' root folders are made with this umask; the
                   // environment's 077 would leave "/" to root alone, and
                   // a pod that runs as another user could reach nothing.
                   .umask = 022}},
      {.name = "kubelet",
       .process = {.argv =
                       InNetns(netns, {kubelet, "--config=" + options.dir + "/kubelet/config.yaml",
                                       "--kubeconfig=" + Kubeconfig(options, kNodeUser),
                                       "--root-dir=" + options.dir + "/kubelet/root",
                                       "--cert-dir=" + options.dir + "/kubelet/pki",
                                       std::string("--hostname-override=") + kRealNodeName,
                                       std::string("--node-ip=") + kNodeIp,
                                       "--node-labels=" + labels, "--v=1"}),
                   .log_path = logs + "kubelet.log",
                   .umask = 022},
       .restart_after = {"containerd"}},
      {.name = "kube-proxy",
       .process = {.argv = InNetns(
                       netns,
                       {proxy, "--config=" + options.dir + "/kube-proxy/config.yaml", "--v=1"}),
                   .log_path = logs + "kube-proxy.log"}},
      // The host's DNS for the node's pods, with an identity of its own
      // that may list Services and pods (to know who asks) and nothing else.
      {.name = "cluster-dns",
       .process = {.argv = {options.vtenant_binary, "--kubeconfig",
                            Kubeconfig(options, kClusterDnsUser), "cluster-dns", "--netns", netns,
                            "--listen", std::string(kNodeIp) + ":53"},
                   .log_path = logs + "cluster-dns.log"}},
  };
  if (options.pods_reach_api_server) {
    // The host API server for the node's pods (the kubernetes Service's
    // endpoint, KubernetesEndpointSlice), at the node's address.
    components.push_back(
        {.name = "node-relay-pods-api",
         .process = {.argv = {options.vtenant_binary, "relay", "--netns", netns, "--listen",
                              std::string(kNodeIp) + ":" + std::to_string(options.api_server_port),
                              "--to", api},
                     .log_path = logs + "relay-pods-api.log"}});
  }
  return components;
}

Status ImportRealNodeImages(const RealNodeOptions& options, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  const std::vector<std::string> ctr = {"/usr/bin/ctr", "--address", ContainerdSocket(options),
                                        "--namespace", "k8s.io"};
  std::string last;
  while (true) {
    std::vector<std::string> version = ctr;
    version.push_back("version");
    Result<CommandResult> answered = RunCommand(version);
    if (answered.ok() && answered->exit_code == 0) break;
    last = answered.ok() ? answered->err : answered.status().message();
    if (std::chrono::steady_clock::now() > deadline) {
      return Unavailable("containerd did not answer on " + ContainerdSocket(options) + ": " + last);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (const char* image : {"pause", "busybox"}) {
    VT_RETURN_IF_ERROR(
        ImportInto(ContainerdSocket(options), options.dir + "/images/" + image + ".tar"));
  }
  return Status::Ok();
}

Status ImportImage(const std::string& state_dir, const std::string& tarball) {
  const std::string socket = ContainerdSocket({.dir = state_dir + "/node"});
  if (!std::filesystem::exists(socket)) {
    return FailedPrecondition("the environment in " + state_dir +
                              " has no real node running (vtenant up --real-node starts one)");
  }
  return ImportInto(socket, tarball);
}

Status WaitRealNodeReady(const RealNodeOptions& options, kube::Client& client,
                         std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::string last = "not registered";
  while (true) {
    Result<kube::Object> node = client.Get(kube::resources::kNodes, "", kRealNodeName);
    if (node.ok()) {
      last = "not Ready";
      const rapidjson::Value* conditions = kube::Find(*node, {"status", "conditions"});
      if (conditions != nullptr && conditions->IsArray()) {
        for (const auto& c : conditions->GetArray()) {
          if (kube::GetString(c, {"type"}) == "Ready") {
            if (kube::GetString(c, {"status"}) == "True") {
              last.clear();
            } else {
              last = "not Ready: " + std::string(kube::GetString(c, {"message"}));
            }
          }
        }
      }
      if (last.empty()) break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return Unavailable(std::string("node ") + kRealNodeName + " is " + last + "; see " +
                         options.dir + "/logs/kubelet.log");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (!options.gpu) return Status::Ok();
  // The GPU a simulated node would have: capacity and allocatable in the
  // node's status (the kubelet keeps extended resources it does not
  // manage) and the labels GPU feature discovery would set.
  const std::string labels = kube::ToJson(kube::BuildJson(kube::JsonObject{
      {"metadata",
       kube::JsonObject{{"labels", kube::JsonObject{{kai::kGpuPresentLabel, "true"},
                                                    {kai::kGpuCountLabel, "1"},
                                                    {kai::kGpuProductLabel, options.gpu_product},
                                                    {kai::kGpuMemoryLabel,
                                                     std::to_string(options.gpu_memory_mib)}}}}}}));
  VT_RETURN_IF_ERROR(
      client.Patch(kube::resources::kNodes, "", kRealNodeName, kube::PatchType::kMerge, labels)
          .status());
  // Allocatable too: the kubelet would copy it from capacity only on its
  // next status update (up to 10 s later), and until then admits no pod
  // that asks for the GPU.
  const kube::JsonObject gpu{{kai::kGpuResource, "1"}};
  const std::string capacity = kube::ToJson(kube::BuildJson(
      kube::JsonObject{{"status", kube::JsonObject{{"capacity", gpu}, {"allocatable", gpu}}}}));
  kube::PatchOptions status;
  status.subresource = "status";
  return client
      .Patch(kube::resources::kNodes, "", kRealNodeName, kube::PatchType::kMerge, capacity, status)
      .status();
}

int KillRealNodeContainers(const std::string& state_dir) {
  int signalled = 0;
  const std::string root = CgroupRoot(state_dir).substr(1);
  for (const fs::path& hierarchy : CgroupHierarchies()) {
    std::error_code ec;
    if (!fs::exists(hierarchy / root, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(hierarchy / root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() != "cgroup.procs") continue;
      std::ifstream procs(it->path());
      for (pid_t pid; procs >> pid;) {
        if (pid > 1 && pid != getpid() && kill(pid, SIGKILL) == 0) ++signalled;
      }
    }
    if (signalled > 0) break;  // every pod's process is in each hierarchy
  }
  return signalled;
}

Status RemoveRealNode(const std::string& state_dir_in) {
  const std::string state_dir = fs::absolute(state_dir_in).lexically_normal().string();
  // Deepest first: sandboxes' namespaces, overlay rootfs, volume tmpfs.
  std::vector<std::string> mounts;
  std::ifstream mountinfo("/proc/self/mountinfo");
  for (std::string line; std::getline(mountinfo, line);) {
    std::istringstream fields(line);
    std::string id, parent, devices, root, point;
    fields >> id >> parent >> devices >> root >> point;
    if (point == state_dir || point.rfind(state_dir + "/", 0) == 0) mounts.push_back(point);
  }
  std::sort(mounts.begin(), mounts.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& point : mounts) umount2(point.c_str(), MNT_DETACH);
  VT_RETURN_IF_ERROR(DeleteNetns(NetnsName(state_dir)));
  // Leaf cgroups first; an empty cgroup folder is removed with rmdir.
  for (const fs::path& hierarchy : CgroupHierarchies()) {
    const fs::path root = hierarchy / CgroupRoot(state_dir).substr(1);
    std::error_code ec;
    if (!fs::exists(root, ec)) continue;
    std::vector<fs::path> dirs;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory()) dirs.push_back(it->path());
    }
    std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) {
      return a.string().size() > b.string().size();
    });
    for (const fs::path& d : dirs) rmdir(d.c_str());
    rmdir(root.c_str());
  }
  return Status::Ok();
}

}  // namespace vtenant::localenv

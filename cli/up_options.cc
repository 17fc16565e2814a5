#include "cli/up_options.h"

#include <filesystem>

#include "cli/command_line.h"

namespace vtenant::cli {
namespace fs = std::filesystem;

const char kUpUsage[] = R"(Usage: vtenant up [options]

Starts the whole system on loopback: a host cluster (etcd, kube-apiserver,
kube-controller-manager, and kwok playing the kubelet of simulated GPU
nodes), the CRDs (Tenant, KAI Queue and PodGroup), vtenant-scheduler and
vtenant-operator (tenants' control planes as local processes), all kept
running by a supervisor: a program that exits is started again.

State, data and logs go to the state folder (--state-dir, default .vtenant),
and stay there: `up` never deletes anything. When the environment runs, `up`
says so; after `vtenant down`, a reboot, or a killed supervisor, `up` starts
again what is not running, with the same data, ports and Tenants. Only
`vtenant delete` removes the state folder.

  --nodes FILE              node inventory (default examples/nodes/l40s.yaml:
                            one node with one NVIDIA L40S)
  --real-node               add one real node (containerd, runc, CNI bridge,
                            kube-proxy, kubelet) whose pods run processes:
                            logs, exec and port-forward work; it lives in a
                            network namespace of its own (needs root and
                            hack/build-tools.sh kubelet kube-proxy)
  --real-node-gpu           the real node also advertises one simulated GPU
                            (nvidia.com/gpu and the GPU labels)
  --cluster-only            the host cluster and its nodes only: no CRDs,
                            scheduler or operator, so that `helm install
                            vtenant charts/vtenant` installs them as on any
                            cluster (with --real-node: the chart's pods run
                            on the real node; `hack/build-images.py
                            --programs` and `vtenant load-image` give them
                            their image)
  --port N                  host API server port (default: a free one; a
                            busy N falls back to a free one and says so)
  --crds DIR                CRDs to install (default charts/vtenant/crds)
  --chart DIR               the chart whose ServiceAccounts and RBAC the
                            scheduler and operator run with, as on a real
                            cluster (default charts/vtenant)
  --operator-binary FILE    default: <build>/operator/vtenant-operator
  --scheduler-binary FILE   default: <build>/scheduler/vtenant-scheduler
  --syncer-binary FILE      default: <build>/syncer/vtenant-syncer
  --scheduler-arg ARG       hand ARG to vtenant-scheduler, after the
                            environment's own arguments; repeat it for more
                            (--scheduler-arg=--hami-core
                            --scheduler-arg=--block-nvidia-visible-devices
                            turns on what the chart's scheduler.webhook
                            values do); `vtenant-scheduler --help` lists them

The options apply to a new environment; an existing one keeps its own.
)";

namespace {

// The first existing `relative` folder in the current folder or above the
// running binary (a build tree inside the source tree).
std::string FindSourceFolder(const std::string& relative) {
  if (fs::exists(relative)) return fs::absolute(relative).lexically_normal().string();
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path dir = exe.parent_path(); !ec && !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    if (fs::exists(dir / relative)) return (dir / relative).string();
  }
  return relative;
}

std::string Absolute(const std::string& path) {
  return path.empty() ? path : fs::absolute(path).lexically_normal().string();
}

}  // namespace

int ParseUpOptions(const std::string& command, const std::vector<std::string>& args,
                   UpOptions& options) {
  const std::string name = "vtenant " + command;
  // The flags of `up`, alike in form to every program's table (base/flags.h).
  const std::vector<FlagBinding> table = {
      TextFlag("nodes", &options.nodes_path),
      TextFlag("crds", &options.crds_dir),
      TextFlag("chart", &options.chart_dir),
      TextFlag("operator-binary", &options.operator_binary),
      TextFlag("scheduler-binary", &options.scheduler_binary),
      TextFlag("syncer-binary", &options.syncer_binary),
      WholeNumberFlag("port", &options.port, 0, 65535),
      SwitchFlag("real-node", &options.real_node),
      SwitchFlag("cluster-only", &options.cluster_only),
      {"scheduler-arg",
       [&options](const std::string& v) {
         options.scheduler_args.push_back(v);
         return Status::Ok();
       }},
      {"real-node-gpu",
       [&options](const std::string& v) {
         // A GPU on the real node asks for the node too.
         options.real_node_gpu = v == "true";
         options.real_node = options.real_node || options.real_node_gpu;
         return Status::Ok();
       },
       /*is_switch=*/true},
  };
  SplitCommandLine split;
  if (int code = ReadFlags(name, args, table, Words::kRefuse, kUpUsage, split); code >= 0) {
    return code;
  }
  if (options.crds_dir.empty()) options.crds_dir = FindSourceFolder("charts/vtenant/crds");
  if (options.chart_dir.empty()) options.chart_dir = FindSourceFolder("charts/vtenant");
  options.images_script = Absolute(FindSourceFolder("hack/build-images.py"));
  // The supervisor runs from the state folder's parent, not from here.
  options.nodes_path = Absolute(options.nodes_path);
  options.crds_dir = Absolute(options.crds_dir);
  options.chart_dir = Absolute(options.chart_dir);
  options.operator_binary = Absolute(options.operator_binary);
  options.scheduler_binary = Absolute(options.scheduler_binary);
  options.syncer_binary = Absolute(options.syncer_binary);
  return -1;
}

std::vector<std::string> UpArguments(const UpOptions& options) {
  std::vector<std::string> args = {"--nodes",        options.nodes_path, "--crds",
                                   options.crds_dir, "--chart",          options.chart_dir};
  if (options.port != 0) args.insert(args.end(), {"--port", std::to_string(options.port)});
  if (options.real_node_gpu) {
    args.push_back("--real-node-gpu");
  } else if (options.real_node) {
    args.push_back("--real-node");
  }
  if (options.cluster_only) args.push_back("--cluster-only");
  const std::pair<const char*, const std::string*> binaries[] = {
      {"--operator-binary", &options.operator_binary},
      {"--scheduler-binary", &options.scheduler_binary},
      {"--syncer-binary", &options.syncer_binary}};
  for (const auto& [flag, value] : binaries) {
    if (!value->empty()) args.insert(args.end(), {flag, *value});
  }
  // "--scheduler-arg=V", not two words: V starts with dashes.
  for (const std::string& arg : options.scheduler_args) args.push_back("--scheduler-arg=" + arg);
  return args;
}

}  // namespace vtenant::cli

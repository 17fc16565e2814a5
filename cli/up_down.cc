// `vtenant up`, `down` and `status`: the local environment's lifecycle.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include "base/secret_file.h"
#include "cli/commands.h"
#include "cli/daemons.h"
#include "cli/environment_state.h"
#include "cli/leftover_processes.h"
#include "cli/node_table.h"
#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "localenv/chart_accounts.h"
#include "localenv/local_cluster.h"
#include "localenv/process.h"
#include "localenv/tools.h"

namespace vtenant::cli {
namespace fs = std::filesystem;

namespace {

constexpr char kUpUsage[] = R"(Usage: vtenant up [options]

Starts the whole system on loopback: a host cluster (etcd, kube-apiserver,
kube-controller-manager, and kwok playing the kubelet of simulated GPU
nodes), the CRDs (Tenant, KAI Queue and PodGroup), vtenant-scheduler and
vtenant-operator (tenants' control planes as local processes). State and
logs go to the state folder (--state-dir, default .vtenant). Idempotent: if
the environment already runs, prints how to reach it; a stale state folder
from an earlier run is cleaned up first.

  --nodes FILE              node inventory (default examples/nodes/l40s.yaml:
                            one node with one NVIDIA L40S)
  --port N                  host API server port (default: a free one; a
                            busy N falls back to a free one and says so)
  --crds DIR                CRDs to install (default charts/vtenant/crds)
  --chart DIR               the chart whose ServiceAccounts and RBAC the
                            scheduler and operator run with, as on a real
                            cluster (default charts/vtenant)
  --operator-binary FILE    default: <build>/operator/vtenant-operator
  --scheduler-binary FILE   default: <build>/scheduler/vtenant-scheduler
  --syncer-binary FILE      default: <build>/syncer/vtenant-syncer
)";

// Stops recorded processes that are still ours, newest first, then any
// process still working in the folder (tenants' control planes and syncers
// started by the operator, leftovers of an interrupted `up`).
void StopEverything(const EnvironmentState& state, const std::string& dir) {
  for (auto it = state.processes.rbegin(); it != state.processes.rend(); ++it) {
    if (!IsRecordedProcess(it->first, it->second)) continue;
    localenv::Process process = localenv::Process::Adopt(it->second, it->first);
    process.Stop(std::chrono::seconds(10));
  }
  if (int stopped = StopLeftoverProcesses(dir); stopped > 0) {
    std::cout << "vtenant: stopped " << stopped << " more process(es) working in " << dir
              << " (tenants' control planes and syncers)\n";
  }
}

void PrintHowToReach(const std::string& kubeconfig, const std::string& state_dir) {
  std::cout << "\nHost cluster kubeconfig: " << kubeconfig << "\n"
            << "  export KUBECONFIG=" << kubeconfig << "\n"
            << "  kubectl get nodes        (kubectl is in .tools/bin)\n"
            << "Tenants: kubectl apply -k examples/tenants, then\n"
            << "  vtenant tenants; vtenant queues; vtenant kubeconfig nlp > nlp.kubeconfig\n"
            << "Logs: " << state_dir << "/*/*.log\n"
            << "Stop: vtenant down   (or make down)\n";
}

// True when nothing listens on 127.0.0.1:port (we could bind it).
bool PortIsFree(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool free = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return free;
}

// The *.yaml files of `dir`, sorted. NotFound when there are none.
Result<std::vector<std::string>> YamlFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  if (ec || files.empty()) {
    return NotFound("no CRDs (*.yaml) in " + dir + (ec ? " (" + ec.message() + ")" : "") +
                    "; run from the source tree or pass --crds");
  }
  std::sort(files.begin(), files.end());
  return files;
}

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

struct UpOptions {
  std::string nodes_path = "examples/nodes/l40s.yaml";
  int port = 0;
  std::string crds_dir;
  std::string chart_dir;
  std::string operator_binary, scheduler_binary, syncer_binary;
};

// The namespace of the chart's accounts, as `helm install --namespace` would
// make it; the scheduler's reservation pods live there too.
constexpr char kSystemNamespace[] = "vtenant-system";

// Parses `up`'s options; returns an exit code when the command should end
// now (help, or a usage error), -1 otherwise.
int ParseUpOptions(const std::vector<std::string>& args, UpOptions& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "-h" || a == "--help") {
      std::cout << kUpUsage;
      return 0;
    } else if (a == "--nodes" && has_value) {
      options.nodes_path = args[++i];
    } else if (a == "--crds" && has_value) {
      options.crds_dir = args[++i];
    } else if (a == "--chart" && has_value) {
      options.chart_dir = args[++i];
    } else if (a == "--operator-binary" && has_value) {
      options.operator_binary = args[++i];
    } else if (a == "--scheduler-binary" && has_value) {
      options.scheduler_binary = args[++i];
    } else if (a == "--syncer-binary" && has_value) {
      options.syncer_binary = args[++i];
    } else if (a == "--port" && has_value) {
      const std::string& v = args[++i];
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(v) > 65535) {
        std::cerr << "vtenant up: --port wants a port number, got \"" << v << "\"\n";
        return 2;
      }
      options.port = std::stoi(v);
    } else {
      std::cerr << "vtenant up: unknown option \"" << a << "\"\n\n" << kUpUsage;
      return 2;
    }
  }
  if (options.crds_dir.empty()) options.crds_dir = FindSourceFolder("charts/vtenant/crds");
  if (options.chart_dir.empty()) options.chart_dir = FindSourceFolder("charts/vtenant");
  return -1;
}

// An earlier environment in `dir`: reports it and returns 0 if it is
// whole; otherwise explains what is stale, stops what is left, removes the
// folder and returns -1 so that `up` starts afresh.
int HandleExisting(const std::string& dir) {
  Result<EnvironmentState> existing = EnvironmentState::Load(dir);
  if (existing.ok()) {
    const std::vector<std::string> alive = existing->Alive();
    if (alive.size() == existing->processes.size() && !existing->processes.empty()) {
      std::cout << "vtenant: local environment already running in " << dir << "\n";
      if (auto config = kube::LoadKubeconfig(existing->kubeconfig); config.ok()) {
        if (auto client = kube::RestClient::Create(*config); client.ok()) {
          (void)PrintNodes(**client, std::cout);
        }
      }
      PrintHowToReach(existing->kubeconfig, dir);
      return 0;
    }
    std::cout << "vtenant: " << dir << " is left from an earlier run: " << alive.size() << " of "
              << existing->processes.size()
              << " recorded processes still run (the machine restarted, or something was killed)."
              << "\nvtenant: stopping what is left and starting afresh\n";
    StopEverything(*existing, dir);
  } else if (fs::exists(dir)) {
    std::cout << "vtenant: " << dir << " exists but holds no usable environment ("
              << existing.status().message() << ").\nvtenant: stopping anything still working "
              << "there and starting afresh\n";
    StopEverything(EnvironmentState{}, dir);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) {
    std::cerr << "vtenant up: cannot remove " << dir << ": " << ec.message() << "\n";
    return 1;
  }
  return -1;
}

// Starts one vtenant program; a missing binary is a warning, not a failure:
// the host cluster is useful without it, and the message says what to build.
Status StartProgram(const std::string& name, const std::string& binary_override,
                    const std::string& build_subdir, std::vector<std::string> args,
                    const std::string& dir, EnvironmentState& state) {
  Result<std::string> binary = FindVtenantProgram(binary_override, build_subdir, name);
  if (!binary.ok()) {
    std::cout << "vtenant: not starting " << name << ": " << binary.status().message() << "\n";
    return Status::Ok();
  }
  VT_ASSIGN_OR_RETURN(int port, localenv::PickFreeLoopbackPort());
  std::vector<std::string> argv = {*binary, "--health-address=127.0.0.1:" + std::to_string(port)};
  argv.insert(argv.end(), args.begin(), args.end());
  VT_ASSIGN_OR_RETURN(
      pid_t pid,
      StartDaemon({.name = name, .argv = argv, .dir = dir + "/" + name, .health_port = port}));
  state.processes.emplace_back(name, pid);
  VT_RETURN_IF_ERROR(state.Save(dir));
  std::cout << "vtenant: " << name << " running (pid " << pid << ", health on 127.0.0.1:" << port
            << ")\n";
  return Status::Ok();
}

}  // namespace

int RunUp(const GlobalOptions& global, const std::vector<std::string>& args) {
  UpOptions options;
  if (int code = ParseUpOptions(args, options); code >= 0) return code;
  const std::string dir = fs::absolute(global.state_dir).lexically_normal().string();
  if (int code = HandleExisting(dir); code >= 0) return code;
  // The state folder holds every key, certificate, token and kubeconfig of
  // the environment, and the data of every cluster in it: nothing in it is
  // for anyone but its owner. The umask is inherited by every program
  // started from here (the API servers' and controller managers' own
  // certificates, etcd, the operator and its tenants' control planes).
  ::umask(077);
  if (Status s = EnsurePrivateDirectory(dir); !s.ok()) {
    std::cerr << "vtenant up: " << s.ToString() << "\n";
    return 1;
  }

  Result<std::vector<localenv::SimulatedNode>> nodes =
      localenv::LoadNodeInventory(options.nodes_path);
  if (!nodes.ok()) {
    std::cerr << "vtenant up: " << nodes.status().message() << "\n";
    return 1;
  }
  Result<std::vector<std::string>> crds = YamlFiles(options.crds_dir);
  if (!crds.ok()) {
    std::cerr << "vtenant up: " << crds.status().message() << "\n";
    return 1;
  }
  if (options.port != 0 && !PortIsFree(options.port)) {
    std::cout << "vtenant: port " << options.port
              << " on 127.0.0.1 is in use (another API server, or an environment started "
                 "elsewhere); using a free port instead\n";
    options.port = 0;
  }
  std::cout << "vtenant: starting etcd, kube-apiserver, kube-controller-manager and kwok in " << dir
            << " ...\n";
  Result<std::unique_ptr<localenv::LocalCluster>> cluster =
      localenv::LocalCluster::Start({.dir = dir,
                                     .nodes = *nodes,
                                     .manifests = *crds,
                                     .api_server_port = options.port,
                                     .die_with_parent = false});
  if (!cluster.ok()) {
    std::cerr << "vtenant up: " << cluster.status().ToString() << "\n";
    StopLeftoverProcesses(dir);
    return 1;
  }
  EnvironmentState state;
  state.kubeconfig = (*cluster)->api_server().kubeconfig_path();
  state.processes = (*cluster)->Release();
  auto fail = [&](const std::string& what, const Status& status) {
    std::cerr << "vtenant up: " << what << ": " << status.ToString()
              << "\nvtenant up: stopping what was started; logs stay in " << dir << "\n";
    StopEverything(state, dir);
    return 1;
  };
  if (Status saved = state.Save(dir); !saved.ok()) return fail("saving state", saved);

  std::cout << "vtenant: installed CRDs from";
  for (const std::string& file : *crds) std::cout << " " << fs::path(file).filename().string();
  std::cout << "\n";

  // The scheduler and the operator act as the chart's ServiceAccounts, with
  // exactly the rights it grants them on a real cluster.
  if (Status s = localenv::InstallChartAccounts(
          (*cluster)->client(), {.chart_dir = options.chart_dir, .ns = kSystemNamespace});
      !s.ok()) {
    return fail("installing the chart's ServiceAccounts and RBAC", s);
  }
  auto account_kubeconfig = [&](const std::string& account) -> Result<std::string> {
    const std::string path = dir + "/accounts/" + account + ".kubeconfig";
    VT_RETURN_IF_ERROR(localenv::WriteServiceAccountKubeconfig((*cluster)->api_server(),
                                                               kSystemNamespace, account, path));
    return path;
  };
  Result<std::string> scheduler_kubeconfig = account_kubeconfig("vtenant-scheduler");
  Result<std::string> operator_kubeconfig = account_kubeconfig("vtenant-operator");
  for (const Result<std::string>* k : {&scheduler_kubeconfig, &operator_kubeconfig}) {
    if (!k->ok()) return fail("writing the programs' kubeconfigs", k->status());
  }

  const std::string tools_bin =
      fs::path(localenv::FindTool("kube-apiserver").value_or("")).parent_path().string();
  // The scheduler serves its admission webhook (GPU-sharing pods need it)
  // on loopback and fills in the chart's webhook configuration.
  Result<int> webhook_port = localenv::PickFreeLoopbackPort();
  if (!webhook_port.ok()) return fail("picking the webhook's port", webhook_port.status());
  if (Status s = StartProgram("vtenant-scheduler", options.scheduler_binary, "scheduler",
                              {"--kubeconfig=" + *scheduler_kubeconfig,
                               "--webhook-address=127.0.0.1:" + std::to_string(*webhook_port),
                               std::string("--reservation-namespace=") + kSystemNamespace,
                               "--reservation-service-account=vtenant-gpu-reservation"},
                              dir, state);
      !s.ok()) {
    return fail("starting vtenant-scheduler", s);
  }
  // Tenants' control planes keep their folders under <dir>/operator and
  // their data in an etcd the operator starts there, where each is an etcd
  // user confined to /vtenant/<t>/: never in the host's etcd, which holds
  // the host's Secrets and only the host's API server may reach.
  std::vector<std::string> operator_args = {
      "--kubeconfig=" + *operator_kubeconfig,
      std::string("--credentials-namespace=") + kSystemNamespace, "--backend-default=process",
      "--state-dir=" + dir + "/operator", "--tools-bin=" + tools_bin};
  Result<std::string> syncer =
      FindVtenantProgram(options.syncer_binary, "syncer", "vtenant-syncer");
  if (syncer.ok()) {
    operator_args.push_back("--syncer-binary=" + *syncer);
  } else {
    std::cout << "vtenant: " << syncer.status().message()
              << "; tenants' pods will not reach the host\n";
  }
  if (Status s = StartProgram("vtenant-operator", options.operator_binary, "operator",
                              operator_args, dir, state);
      !s.ok()) {
    return fail("starting vtenant-operator", s);
  }

  const int ready = WaitForReadyNodes((*cluster)->client(), 30);
  std::cout << "vtenant: host cluster up with " << ready << " ready simulated GPU node(s)\n\n";
  if (Status printed = PrintNodes((*cluster)->client(), std::cout); !printed.ok()) {
    std::cerr << "vtenant up: listing nodes: " << printed.ToString() << "\n";
  }
  PrintHowToReach(state.kubeconfig, dir);
  return 0;
}

int RunDown(const GlobalOptions& global, const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cout << "Usage: vtenant down\n\nStops everything `vtenant up` started (the host "
                 "cluster, vtenant-scheduler, vtenant-operator and the tenants' control planes "
                 "and syncers) and deletes the state folder.\n";
    return args[0] == "-h" || args[0] == "--help" ? 0 : 2;
  }
  const std::string dir = fs::absolute(global.state_dir).lexically_normal().string();
  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  if (!state.ok()) {
    if (!fs::exists(dir)) {
      std::cout << "vtenant: nothing to stop (" << state.status().message() << ")\n";
      return 0;
    }
    std::cout << "vtenant: " << state.status().message() << "; stopping what still works in " << dir
              << "\n";
    state = EnvironmentState{};
  }
  StopEverything(*state, dir);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) {
    std::cerr << "vtenant down: processes stopped, but " << dir
              << " could not be removed: " << ec.message() << "\n";
    return 1;
  }
  std::cout << "vtenant: local environment stopped and " << dir << " removed\n";
  return 0;
}

int RunStatus(const GlobalOptions& global, const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cout << "Usage: vtenant status\n\nShows the local environment's processes (running or "
                 "stopped), the tenants' processes working in the state folder, and the "
                 "simulated nodes.\n";
    return args[0] == "-h" || args[0] == "--help" ? 0 : 2;
  }
  const std::string dir = fs::absolute(global.state_dir).lexically_normal().string();
  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  if (!state.ok()) {
    std::cout << "vtenant: no local environment (" << state.status().message()
              << "); start one with `vtenant up`\n";
    return 1;
  }
  std::set<pid_t> recorded;
  for (const auto& [name, pid] : state->processes) {
    recorded.insert(pid);
    std::cout << (IsRecordedProcess(name, pid) ? "running  " : "stopped  ") << name << " (pid "
              << pid << ")\n";
  }
  int tenant_processes = 0;
  for (const LeftoverProcess& p : FindLeftoverProcesses(dir)) {
    if (!recorded.contains(p.pid)) ++tenant_processes;
  }
  std::cout << "tenants: " << tenant_processes << " process(es) under " << dir << "/operator\n";
  Result<kube::RestConfig> config = kube::LoadKubeconfig(state->kubeconfig);
  if (!config.ok()) return 1;
  Result<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(*config);
  if (!client.ok()) return 1;
  std::cout << "\n";
  if (Status printed = PrintNodes(**client, std::cout); !printed.ok()) {
    std::cerr << "vtenant status: host API server unreachable: " << printed.ToString() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace vtenant::cli

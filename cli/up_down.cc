// `vtenant up`, `down` and `status`: the local environment's lifecycle.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/environment_state.h"
#include "cli/node_table.h"
#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "localenv/local_cluster.h"
#include "localenv/process.h"

namespace vtenant::cli {
namespace fs = std::filesystem;

namespace {

constexpr char kUpUsage[] = R"(Usage: vtenant up [--nodes FILE]

Starts a host cluster on loopback: etcd, kube-apiserver, kube-controller-manager
and kwok playing the kubelet of simulated GPU nodes. Idempotent: if the
environment already runs, prints how to reach it.

  --nodes FILE   node inventory (default examples/nodes/l40s.yaml: one NVIDIA L40S)
)";

// Stops recorded processes that are still ours, newest first.
void StopRecorded(const EnvironmentState& state) {
  for (auto it = state.processes.rbegin(); it != state.processes.rend(); ++it) {
    if (!IsRecordedProcess(it->first, it->second)) continue;
    localenv::Process process = localenv::Process::Adopt(it->second, it->first);
    process.Stop(std::chrono::seconds(10));
  }
}

void PrintHowToReach(const std::string& kubeconfig, const std::string& state_dir) {
  std::cout << "\nHost cluster kubeconfig: " << kubeconfig << "\n"
            << "  export KUBECONFIG=" << kubeconfig << "\n"
            << "  kubectl get nodes        (kubectl is in .tools/bin)\n"
            << "Logs: " << state_dir << "/*/*.log\n"
            << "Stop: vtenant down   (or make down)\n";
}

}  // namespace

int RunUp(const GlobalOptions& global, const std::vector<std::string>& args) {
  std::string nodes_path = "examples/nodes/l40s.yaml";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--nodes" && i + 1 < args.size()) {
      nodes_path = args[++i];
    } else if (args[i] == "-h" || args[i] == "--help") {
      std::cout << kUpUsage;
      return 0;
    } else {
      std::cerr << "vtenant up: unknown option \"" << args[i] << "\"\n" << kUpUsage;
      return 2;
    }
  }
  const std::string dir = fs::absolute(global.state_dir).lexically_normal().string();
  if (Result<EnvironmentState> existing = EnvironmentState::Load(dir); existing.ok()) {
    if (existing->Alive().size() == existing->processes.size() && !existing->processes.empty()) {
      std::cout << "vtenant: local environment already running in " << dir << "\n";
      if (auto config = kube::LoadKubeconfig(existing->kubeconfig); config.ok()) {
        if (auto client = kube::RestClient::Create(*config); client.ok()) {
          (void)PrintNodes(**client, std::cout);
        }
      }
      PrintHowToReach(existing->kubeconfig, dir);
      return 0;
    }
    std::cout << "vtenant: cleaning up a partly stopped environment in " << dir << "\n";
    StopRecorded(*existing);
    fs::remove_all(dir);
  }

  Result<std::vector<localenv::SimulatedNode>> nodes = localenv::LoadNodeInventory(nodes_path);
  if (!nodes.ok()) {
    std::cerr << "vtenant up: " << nodes.status().message() << "\n";
    return 1;
  }
  std::cout << "vtenant: starting etcd, kube-apiserver, kube-controller-manager and kwok in " << dir
            << " ...\n";
  Result<std::unique_ptr<localenv::LocalCluster>> cluster =
      localenv::LocalCluster::Start({.dir = dir, .nodes = *nodes, .die_with_parent = false});
  if (!cluster.ok()) {
    std::cerr << "vtenant up: " << cluster.status().ToString() << "\n";
    return 1;
  }
  EnvironmentState state;
  state.kubeconfig = (*cluster)->api_server().kubeconfig_path();
  state.processes = (*cluster)->Release();
  if (Status saved = state.Save(dir); !saved.ok()) {
    std::cerr << "vtenant up: " << saved.ToString() << "\n";
    StopRecorded(state);
    return 1;
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
    std::cout << "Usage: vtenant down\n\nStops the local environment and deletes its state.\n";
    return args[0] == "-h" || args[0] == "--help" ? 0 : 2;
  }
  const std::string dir = fs::absolute(global.state_dir).lexically_normal().string();
  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  if (!state.ok()) {
    std::cout << "vtenant: nothing to stop (" << state.status().message() << ")\n";
    return 0;
  }
  StopRecorded(*state);
  fs::remove_all(dir);
  std::cout << "vtenant: local environment stopped and " << dir << " removed\n";
  return 0;
}

int RunStatus(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string dir = fs::absolute(global.state_dir).lexically_normal().string();
  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  if (!state.ok()) {
    std::cout << "vtenant: no local environment (" << state.status().message()
              << "); start one with `vtenant up`\n";
    return 1;
  }
  for (const auto& [name, pid] : state->processes) {
    std::cout << (IsRecordedProcess(name, pid) ? "running  " : "stopped  ") << name << " (pid "
              << pid << ")\n";
  }
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

// vtenant: the command line of vtenant. Installed (or linked) as
// kubectl-vtenant it is a kubectl plugin: `kubectl vtenant tenants`.
#include <glog/logging.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"

namespace {

std::string Usage(const std::string& program) {
  return "vtenant: GPU multi-tenancy on Kubernetes.\n\nUsage: " + program +
         R"( [--state-dir DIR] [--kubeconfig FILE] COMMAND [options]

Local environment:
  up           start a local host cluster on loopback (etcd, kube-apiserver,
               kube-controller-manager, simulated GPU nodes), install the CRDs,
               start vtenant-scheduler and vtenant-operator, all
               under a supervisor that restarts whatever exits; after
               `down` or a reboot, starts the same environment again
  down         stop everything `up` started, tenants' control planes
               included; the data is kept (--purge removes it)
  delete       stop the local environment and remove its state folder
  status       the supervisor, each component's pid, restarts and health,
               the tenants' processes and the nodes
  load-image   import image tarballs into the real node (--real-node);
               hack/build-images.py writes them

Any cluster:
  tenants      the Tenants: phase, queue, endpoint; why one is not Ready
  queues       the KAI queue tree: quota, limit, weight, fair share, allocated
  kubeconfig   print a team's kubeconfig (TENANT) or the host's (--host)
  rotate-credentials
               revoke a team's kubeconfig and have a new one issued

Global options:
  --state-dir DIR     where the local environment keeps its state and logs
                      (default .vtenant in the current folder)
  --kubeconfig FILE   the host cluster (default: $KUBECONFIG, else the local
                      environment, else ~/.kube/config)
  -h, --help          this help; `)" +
         program + R"( COMMAND --help` for a command's options
)";
}

}  // namespace

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 1;  // the CLI's own output is what the user reads
  google::InitGoogleLogging(argv[0]);

  vtenant::cli::GlobalOptions global;
  // kubectl runs plugins by their file name, kubectl-vtenant.
  if (std::filesystem::path(argv[0]).filename() == "kubectl-vtenant") {
    global.program = "kubectl vtenant";
  }
  const std::string usage = Usage(global.program);
  vtenant::SplitCommandLine split;
  if (int code = vtenant::cli::ReadFlags(global.program, {argv + 1, argv + argc},
                                         {vtenant::TextFlag("state-dir", &global.state_dir),
                                          vtenant::TextFlag("kubeconfig", &global.kubeconfig)},
                                         vtenant::Words::kEnd, usage, split);
      code >= 0) {
    return code;
  }
  if (split.words.empty()) {
    std::cerr << usage;
    return 2;
  }
  const std::string command = split.words[0];
  if (command == "help") {
    std::cout << usage;
    return 0;
  }
  std::vector<std::string> rest(split.words.begin() + 1, split.words.end());
  using namespace vtenant::cli;
  using Command = int (*)(const GlobalOptions&, const std::vector<std::string>&);
  static const std::map<std::string_view, Command> kCommands = {
      {"up", RunUp},
      {"down", RunDown},
      {"delete", RunDelete},
      {"supervise", RunSupervise},
      {"relay", RunRelay},
      {"cluster-dns", RunClusterDns},
      {"status", RunStatus},
      {"tenants", RunTenants},
      {"queues", RunQueues},
      {"kubeconfig", RunKubeconfig},
      {"rotate-credentials", RunRotateCredentials},
      {"load-image", RunLoadImage},
  };
  if (auto it = kCommands.find(command); it != kCommands.end()) return it->second(global, rest);
  std::cerr << global.program << ": unknown command \"" << command << "\"\n\n" << usage;
  return 2;
}

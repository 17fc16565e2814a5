// vtenant: the command line of vtenant (also usable as `kubectl vtenant`).
#include <glog/logging.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

constexpr char kUsage[] = R"(vtenant: GPU multi-tenancy on Kubernetes.

Usage: vtenant [--state-dir DIR] COMMAND [options]

Commands:
  up       start a local host cluster on loopback (etcd, kube-apiserver,
           kube-controller-manager, simulated GPU nodes) and print how to reach it
  down     stop the local environment started by `up`
  status   show the local environment's processes and nodes

Global options:
  --state-dir DIR   where the local environment keeps its state and logs
                    (default .vtenant in the current folder)
  -h, --help        this help; `vtenant COMMAND --help` for a command's options
)";

}  // namespace

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 1;  // the CLI's own output is what the user reads
  google::InitGoogleLogging(argv[0]);

  vtenant::cli::GlobalOptions global;
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t i = 0;
  for (; i < args.size(); ++i) {
    if (args[i] == "--state-dir" && i + 1 < args.size()) {
      global.state_dir = args[++i];
    } else if (args[i] == "-h" || args[i] == "--help" || args[i] == "help") {
      std::cout << kUsage;
      return 0;
    } else {
      break;
    }
  }
  if (i == args.size()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = args[i];
  std::vector<std::string> rest(args.begin() + static_cast<long>(i) + 1, args.end());
  if (command == "up") return vtenant::cli::RunUp(global, rest);
  if (command == "down") return vtenant::cli::RunDown(global, rest);
  if (command == "status") return vtenant::cli::RunStatus(global, rest);
  std::cerr << "vtenant: unknown command \"" << command << "\"\n\n" << kUsage;
  return 2;
}

// What every vtenant program's main does around its App, so that the
// programs agree on what a user and a supervisor see:
//   - a flag mistake: "<program>: <what is wrong>", a blank line and the
//     usage on stderr, exit status 2;
//   - --help: the usage on stdout, exit status 0;
//   - otherwise glog logs to stderr, SIGPIPE is ignored (a peer that hangs
//     up fails that one call; it must not end the process), `run` runs, and
//     an error it returns is logged, exit status 1.
// The program's main is then one call:
//
//   int main(int argc, char** argv) {
//     return kube::ProgramMain<SyncerFlags>("vtenant-syncer", argc, argv, ParseFlags, Usage,
//                                           [](const SyncerFlags& f) { ... return app->Run(); });
//   }
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/flags.h"
#include "base/status.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"

namespace vtenant::kube {

namespace program_main_internal {

// glog to stderr, SIGPIPE ignored.
void StartRunning(const char* argv0);

// 0 for OK; otherwise logs "<program>: <error>" and gives 1.
int ExitAfterRunning(std::string_view program, const Status& ran);

}  // namespace program_main_internal

// See the file comment. `Flags` has a `bool help` member, which `parse`
// sets for -h and --help.
template <typename Flags>
int ProgramMain(std::string_view program, int argc, char** argv,
                Result<Flags> (*parse)(const std::vector<std::string>&), std::string (*usage)(),
                const std::function<Status(const Flags&)>& run) {
  Result<Flags> flags = parse(std::vector<std::string>(argv + 1, argv + argc));
  if (int code = ExitCodeBeforeRunning(program, flags.status(), flags.ok() && flags->help, usage());
      code >= 0) {
    return code;
  }
  program_main_internal::StartRunning(argv[0]);
  return program_main_internal::ExitAfterRunning(program, run(*flags));
}

// A client of the cluster `kubeconfig` names (when it is empty,
// LoadDefaultConfig's choice: $KUBECONFIG, in-cluster, ~/.kube/config),
// saying `user_agent`, with the config it was made from.
struct ClusterConnection {
  RestConfig config;
  std::unique_ptr<RestClient> client;
};
Result<ClusterConnection> ConnectToCluster(const std::string& kubeconfig, std::string user_agent);

}  // namespace vtenant::kube

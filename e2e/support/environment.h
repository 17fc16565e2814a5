// Environment: the whole system as `vtenant up` starts it, shared by the
// tests of one e2e suite (starting it takes a while; tests share it and
// each cleans up its own workloads).
//
//   static void SetUpTestSuite() { env_ = Environment::Up("ref", "examples/nodes/l40s.yaml"); }
//
// Teams act through the real kubectl and their own kubeconfigs (from
// `vtenant kubeconfig <team>`); the host is read with an admin client.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kube/client.h"
#include "kube/object.h"
#include "localenv/command.h"

namespace vtenant::e2e {

class Environment {
 public:
  // Runs `vtenant up --nodes <source>/<nodes_file> <up_args>` in a fresh
  // /tmp/vtenant-e2e-<name>-XXXXXX. `vtenant_cli` is the binary to use.
  static Result<std::unique_ptr<Environment>> Up(const std::string& vtenant_cli,
                                                 const std::string& name,
                                                 const std::string& nodes_file,
                                                 const std::vector<std::string>& up_args = {});
  // `vtenant down`, then checks (and reports on stderr) that no process is
  // left in the folder; removes the folder unless VTENANT_KEEP_TEST_DIRS.
  ~Environment();
  // Runs `vtenant down` now; returns the names of processes it left behind.
  std::vector<std::string> Down();

  const std::string& dir() const { return dir_; }
  // What `vtenant up` printed.
  const std::string& up_output() const { return up_output_; }
  const std::string& host_kubeconfig() const { return host_kubeconfig_; }
  kube::Client& host() { return *host_; }

  // `vtenant <args>` against this environment.
  Result<localenv::CommandResult> Vtenant(std::vector<std::string> args);
  // kubectl as the host's admin; non-zero exit is an error.
  Result<std::string> HostKubectl(std::vector<std::string> args, const std::string& input = {});

  // Waits until Tenant `tenant` is Ready, then writes its kubeconfig (from
  // `vtenant kubeconfig <tenant>`) to <dir>/<tenant>.kubeconfig.
  Status WaitForTeam(const std::string& tenant,
                     std::chrono::seconds limit = std::chrono::seconds(240));
  // kubectl with the team's own kubeconfig (WaitForTeam first), `input`
  // on its stdin.
  Result<localenv::CommandResult> TeamKubectlRaw(const std::string& tenant,
                                                 std::vector<std::string> args,
                                                 const std::string& input = {});
  Result<std::string> TeamKubectl(const std::string& tenant, std::vector<std::string> args,
                                  const std::string& input = {});
  // The team's kubeconfig file (written by WaitForTeam).
  std::string TeamKubeconfig(const std::string& tenant) const {
    return tmp_ + "/" + tenant + ".kubeconfig";
  }
  // `kubectl get <args> -o json` in the team's cluster, parsed.
  Result<kube::Object> TeamGet(const std::string& tenant, std::vector<std::string> args);

 private:
  Environment() = default;
  std::string cli_, dir_, tmp_, host_kubeconfig_, up_output_;
  std::unique_ptr<kube::Client> host_;
  bool down_ = false;
};

// examples/tenants/<path> in the source tree.
std::string Example(const std::string& path);

// The GPU amount of a quantity field ("330m", "0.33", 1) in milli-GPUs; -1
// when absent or unreadable.
int64_t MilliGpus(const rapidjson::Value* value);

}  // namespace vtenant::e2e

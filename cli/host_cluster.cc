#include "cli/host_cluster.h"

#include <cstdlib>
#include <filesystem>

#include "cli/environment_state.h"
#include "kube/kubeconfig.h"
#include "kube/rest_client.h"

namespace vtenant::cli {
namespace fs = std::filesystem;

Result<std::string> HostKubeconfigPath(const GlobalOptions& global) {
  if (!global.kubeconfig.empty()) {
    if (!fs::exists(global.kubeconfig))
      return NotFound("--kubeconfig " + global.kubeconfig + " does not exist");
    return global.kubeconfig;
  }
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::string first(env);
    first = first.substr(0, first.find(':'));
    if (fs::exists(first)) return first;
  }
  Result<EnvironmentState> local = EnvironmentState::Load(StateDir(global));
  if (local.ok() && fs::exists(local->kubeconfig)) return local->kubeconfig;
  if (const char* home = std::getenv("HOME"); home != nullptr) {
    const std::string path = std::string(home) + "/.kube/config";
    if (fs::exists(path)) return path;
  }
  return NotFound(
      "no host cluster: start a local one with `vtenant up` (or `make demo`), or point "
      "--kubeconfig or $KUBECONFIG at one");
}

Result<std::unique_ptr<kube::Client>> ConnectHost(const GlobalOptions& global) {
  VT_ASSIGN_OR_RETURN(std::string path, HostKubeconfigPath(global));
  Result<kube::RestConfig> config = kube::LoadKubeconfig(path);
  if (!config.ok()) return config.status().WithContext("reading " + path);
  VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> client, kube::RestClient::Create(*config));
  return std::unique_ptr<kube::Client>(std::move(client));
}

}  // namespace vtenant::cli

#include "localenv/node_agent.h"

#include <filesystem>
#include <fstream>
#include <thread>

#include "base/secret_file.h"
#include "localenv/gpu_nodes.h"
#include "localenv/kwok_stages.h"
#include "localenv/tools.h"

namespace vtenant::localenv {

Result<std::unique_ptr<NodeAgent>> NodeAgent::Start(const ApiServer& api_server,
                                                    const NodeAgentOptions& options) {
  VT_ASSIGN_OR_RETURN(std::string binary, FindTool("kwok"));
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(options.dir));
  const std::string config_path = options.dir + "/kwok.yaml";
  std::ofstream(config_path) << kKwokStages;
  std::unique_ptr<NodeAgent> agent(new NodeAgent());
  agent->log_path_ = options.dir + "/kwok.log";
  ProcessOptions process;
  process.argv = {
      binary, "--kubeconfig=" + api_server.kubeconfig_path(), "--config=" + config_path,
      "--manage-all-nodes=false",
      std::string("--manage-nodes-with-label-selector=") + kSimulatedNodeLabel + "=true",
      // Simulated pod addresses: never routed, just unique strings.
      "--cidr=10.244.0.0/16", "--node-ip=10.243.0.1", "--node-lease-duration-seconds=40"};
  process.log_path = agent->log_path_;
  process.die_with_parent = options.die_with_parent;
  // kwok writes its own working files under $HOME/.kwok; keep them with ours.
  process.env["HOME"] = options.dir;
  VT_ASSIGN_OR_RETURN(agent->process_, Process::Start(process));
  // kwok has no readiness endpoint; a config error makes it exit at once.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  if (!agent->process_.Running()) {
    return Unavailable("kwok exited while starting; see " + agent->log_path_);
  }
  return agent;
}

}  // namespace vtenant::localenv

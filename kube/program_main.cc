#include "kube/program_main.h"

#include <glog/logging.h>
#include <signal.h>

#include "kube/kubeconfig.h"

namespace vtenant::kube {
namespace program_main_internal {

void StartRunning(const char* argv0) {
  FLAGS_logtostderr = true;
  if (!google::IsGoogleLoggingInitialized()) google::InitGoogleLogging(argv0);
  signal(SIGPIPE, SIG_IGN);
}

int ExitAfterRunning(std::string_view program, const Status& ran) {
  if (ran.ok()) return 0;
  LOG(ERROR) << program << ": " << ran.ToString();
  return 1;
}

}  // namespace program_main_internal

Result<ClusterConnection> ConnectToCluster(const std::string& kubeconfig, std::string user_agent) {
  ClusterConnection connection;
  VT_ASSIGN_OR_RETURN(connection.config, LoadDefaultConfig(kubeconfig));
  connection.config.user_agent = std::move(user_agent);
  VT_ASSIGN_OR_RETURN(connection.client, RestClient::Create(connection.config));
  return connection;
}

}  // namespace vtenant::kube

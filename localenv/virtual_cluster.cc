#include "localenv/virtual_cluster.h"

namespace vtenant::localenv {

Result<std::unique_ptr<VirtualCluster>> VirtualCluster::Start(
    const VirtualClusterOptions& options) {
  if (options.dir.empty() || options.etcd_url.empty() || options.name.empty()) {
    return InvalidArgument("a virtual cluster needs a folder, an etcd URL and a name");
  }
  std::unique_ptr<VirtualCluster> cluster(new VirtualCluster());
  cluster->name_ = options.name;
  ApiServerOptions api{.dir = options.dir + "/apiserver",
                       .etcd_url = options.etcd_url,
                       .etcd_prefix = "/virtual/" + options.name,
                       .name = "vc-" + options.name,
                       .port = options.port,
                       .extra_users = options.extra_users,
                       .die_with_parent = options.die_with_parent};
  VT_ASSIGN_OR_RETURN(cluster->api_server_, ApiServer::Start(api));
  VT_ASSIGN_OR_RETURN(cluster->client_,
                      kube::RestClient::Create(cluster->api_server_->admin_config()));
  if (options.controller_manager) {
    VT_ASSIGN_OR_RETURN(cluster->controller_manager_,
                        ControllerManager::Start(*cluster->api_server_,
                                                 {.dir = options.dir + "/controller-manager",
                                                  .die_with_parent = options.die_with_parent,
                                                  .controllers = {"*", "-node-ipam-controller",
                                                                  "-node-lifecycle-controller"}}));
  }
  return cluster;
}

void VirtualCluster::Stop() {
  if (controller_manager_) controller_manager_->Stop();
  if (api_server_) api_server_->Stop();
}

std::vector<std::pair<std::string, pid_t>> VirtualCluster::Release() {
  std::vector<std::pair<std::string, pid_t>> pids;
  if (api_server_) pids.emplace_back("kube-apiserver", api_server_->Release());
  if (controller_manager_) {
    pids.emplace_back("kube-controller-manager", controller_manager_->Release());
  }
  return pids;
}

}  // namespace vtenant::localenv

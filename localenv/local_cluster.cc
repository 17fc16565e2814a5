#include "localenv/local_cluster.h"

#include "kube/manifest.h"

namespace vtenant::localenv {

Result<std::unique_ptr<LocalCluster>> LocalCluster::Start(const LocalClusterOptions& options) {
  std::unique_ptr<LocalCluster> cluster(new LocalCluster());
  cluster->dir_ = options.dir;
  VT_ASSIGN_OR_RETURN(cluster->etcd_,
                      EtcdServer::Start({.dir = options.dir + "/etcd",
                                         .die_with_parent = options.die_with_parent}));
  ApiServerOptions api{.dir = options.dir + "/host",
                       .etcd_url = cluster->etcd_->client_url(),
                       .etcd_prefix = "/host",
                       .name = "vtenant-host",
                       .port = options.api_server_port,
                       .extra_users = options.extra_users,
                       .die_with_parent = options.die_with_parent};
  VT_ASSIGN_OR_RETURN(cluster->api_server_, ApiServer::Start(api));
  VT_ASSIGN_OR_RETURN(cluster->client_,
                      kube::RestClient::Create(cluster->api_server_->admin_config()));
  if (options.controller_manager) {
    VT_ASSIGN_OR_RETURN(cluster->controller_manager_,
                        ControllerManager::Start(*cluster->api_server_,
                                                 {.dir = options.dir + "/controller-manager",
                                                  .die_with_parent = options.die_with_parent}));
  }
  if (options.node_agent) {
    VT_ASSIGN_OR_RETURN(
        cluster->node_agent_,
        NodeAgent::Start(*cluster->api_server_, {.dir = options.dir + "/kwok",
                                                 .die_with_parent = options.die_with_parent}));
  }
  VT_RETURN_IF_ERROR(RegisterNodes(*cluster->client_, options.nodes));
  VT_RETURN_IF_ERROR(kube::ApplyManifestFiles(*cluster->client_, options.manifests));
  return cluster;
}

void LocalCluster::Stop() {
  if (node_agent_) node_agent_->Stop();
  if (controller_manager_) controller_manager_->Stop();
  if (api_server_) api_server_->Stop();
  if (etcd_) etcd_->Stop();
}

std::vector<std::pair<std::string, pid_t>> LocalCluster::Release() {
  std::vector<std::pair<std::string, pid_t>> pids;
  if (etcd_) pids.emplace_back("etcd", etcd_->Release());
  if (api_server_) pids.emplace_back("kube-apiserver", api_server_->Release());
  if (controller_manager_) {
    pids.emplace_back("kube-controller-manager", controller_manager_->Release());
  }
  if (node_agent_) pids.emplace_back("kwok", node_agent_->Release());
  return pids;
}

}  // namespace vtenant::localenv

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
                       .etcd_tls = cluster->etcd_->client_tls(),
                       .etcd_prefix = "/host",
                       .name = "vtenant-host",
                       .port = options.api_server_port,
                       .extra_users = options.extra_users,
                       .service_account_admission = options.service_account_admission,
                       .die_with_parent = options.die_with_parent};
  // Two minutes of history (the default is five): the host's churn of pods
  // fills etcd with the versions it keeps, and a shorter window levels its
  // memory sooner. Watchers further behind list again (410 Gone).
  api.extra_args = {"--etcd-compaction-interval=2m"};
  api.extra_args.insert(api.extra_args.end(), options.api_server_args.begin(),
                        options.api_server_args.end());
  std::optional<ControllerManagerOptions> controllers;
  if (options.controller_manager) {
    controllers = ControllerManagerOptions{.dir = options.dir + "/controller-manager",
                                           .die_with_parent = options.die_with_parent};
    // The garbage collector deletes each pod's PodGroup after the pod (the
    // group is owned by it), at about three requests apiece. Under the
    // default client rate (20/s, shared by every controller) a host
    // churning ten pods a second falls behind for good, and the groups
    // pile up in etcd and the API server's cache.
    controllers->extra_args = {"--kube-api-qps=100", "--kube-api-burst=200"};
  }
  VT_ASSIGN_OR_RETURN(cluster->plane_, ControlPlane::Start(api, controllers));
  if (options.node_agent) {
    VT_ASSIGN_OR_RETURN(cluster->node_agent_,
                        NodeAgent::Start(*cluster->plane_.api_server,
                                         {.dir = options.dir + "/kwok",
                                          .die_with_parent = options.die_with_parent}));
  }
  VT_RETURN_IF_ERROR(RegisterNodes(*cluster->plane_.client, options.nodes));
  VT_RETURN_IF_ERROR(kube::ApplyManifestFiles(*cluster->plane_.client, options.manifests));
  return cluster;
}

void LocalCluster::Stop() {
  if (node_agent_) node_agent_->Stop();
  plane_.Stop();
  if (etcd_) etcd_->Stop();
}

void LocalCluster::HandOver(Supervisor& supervisor) {
  auto hand = [&](const std::string& name, Process process, HealthProbe health) {
    Component component{.name = name, .process = process.options(), .health = std::move(health)};
    supervisor.Add(std::move(component), std::move(process));
  };
  if (etcd_) hand("etcd", etcd_->TakeProcess(), etcd_->Health());
  if (plane_.api_server) {
    hand("kube-apiserver", plane_.api_server->TakeProcess(), plane_.api_server->Health());
  }
  if (plane_.controller_manager) {
    hand("kube-controller-manager", plane_.controller_manager->TakeProcess(),
         plane_.controller_manager->Health());
  }
  if (node_agent_) {
    // kwok drops a pod's stage that failed to apply (the store was down)
    // until its next full resync, minutes later; started again it reads
    // every pod afresh.
    Component kwok{
        .name = "kwok", .process = {}, .health = {}, .restart_after = {"etcd", "kube-apiserver"}};
    Process process = node_agent_->TakeProcess();
    kwok.process = process.options();
    supervisor.Add(std::move(kwok), std::move(process));
  }
}

}  // namespace vtenant::localenv

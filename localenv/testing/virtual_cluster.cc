#include "localenv/testing/virtual_cluster.h"

namespace vtenant::localenv {

Result<std::unique_ptr<VirtualCluster>> VirtualCluster::Start(
    const VirtualClusterOptions& options) {
  if (options.dir.empty() || options.etcd_url.empty() || options.name.empty()) {
    return InvalidArgument("a virtual cluster needs a folder, an etcd URL and a name");
  }
  std::unique_ptr<VirtualCluster> cluster(new VirtualCluster());
  ApiServerOptions api{.dir = options.dir + "/apiserver",
                       .etcd_url = options.etcd_url,
                       .etcd_tls = options.etcd_tls,
                       .etcd_prefix = "/virtual/" + options.name,
                       .name = "vc-" + options.name,
                       .port = options.port,
                       .extra_users = options.extra_users,
                       .die_with_parent = options.die_with_parent};
  std::optional<ControllerManagerOptions> controllers;
  if (options.controller_manager) {
    controllers = ControllerManagerOptions{
        .dir = options.dir + "/controller-manager",
        .die_with_parent = options.die_with_parent,
        .controllers = {"*", "-node-ipam-controller", "-node-lifecycle-controller",
                        "-resourceclaim-controller"}};
  }
  VT_ASSIGN_OR_RETURN(cluster->plane_, ControlPlane::Start(api, controllers));
  return cluster;
}

void VirtualCluster::Stop() { plane_.Stop(); }

}  // namespace vtenant::localenv

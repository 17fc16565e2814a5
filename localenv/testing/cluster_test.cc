#include "localenv/testing/cluster_test.h"

#include "kube/json_builder.h"

namespace vtenant::localenv {

void ClusterTest::StartCluster(const std::string& name, LocalClusterOptions options,
                               const std::vector<std::string>& namespaces) {
  dir_ = new TempDir("vtenant-" + name);
  options.dir = dir_->path();
  Result<std::unique_ptr<LocalCluster>> cluster = LocalCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  cluster_ = cluster->release();
  for (const std::string& ns : namespaces) {
    Status created =
        cluster_->client()
            .Create(kube::resources::kNamespaces, "",
                    kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                                     {"kind", "Namespace"},
                                                     {"metadata", kube::JsonObject{{"name", ns}}}}))
            .status();
    ASSERT_TRUE(created.ok()) << "namespace " << ns << ": " << created.ToString();
  }
}

void ClusterTest::StopCluster() {
  delete cluster_;
  cluster_ = nullptr;
  delete dir_;
  dir_ = nullptr;
}

ApiServerOptions ClusterTest::SecondApiServerOptions(const std::string& subdir) {
  return {.dir = cluster().dir() + "/" + subdir,
          .etcd_url = cluster().etcd().client_url(),
          .etcd_tls = cluster().etcd().client_tls(),
          .etcd_prefix = "/host"};
}

VirtualClusterOptions ClusterTest::VirtualClusterOptionsFor(const std::string& tenant) {
  return {.dir = cluster().dir() + "/vc-" + tenant,
          .etcd_url = cluster().etcd().client_url(),
          .etcd_tls = cluster().etcd().client_tls(),
          .name = tenant};
}

}  // namespace vtenant::localenv

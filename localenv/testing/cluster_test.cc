#include "localenv/testing/cluster_test.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace vtenant::localenv {

void ClusterTest::StartCluster(const std::string& name, LocalClusterOptions options,
                               const std::vector<std::string>& namespaces) {
  std::string tmpl = "/tmp/vtenant-" + name + "-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  dir_ = new std::string(tmpl);
  options.dir = *dir_;
  Result<std::unique_ptr<LocalCluster>> cluster = LocalCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  cluster_ = cluster->release();
  for (const std::string& ns : namespaces) {
    Status created =
        cluster_->client()
            .Create(kube::resources::kNamespaces, "",
                    ParseTestJson(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" +
                                  ns + R"("}})"))
            .status();
    ASSERT_TRUE(created.ok()) << "namespace " << ns << ": " << created.ToString();
  }
}

void ClusterTest::StopCluster() {
  delete cluster_;
  cluster_ = nullptr;
  if (dir_ == nullptr) return;
  if (std::getenv("VTENANT_KEEP_TEST_DIRS") == nullptr) std::filesystem::remove_all(*dir_);
  delete dir_;
  dir_ = nullptr;
}

ApiServerOptions ClusterTest::SecondApiServerOptions(const std::string& subdir) {
  return {.dir = cluster().dir() + "/" + subdir,
          .etcd_url = cluster().etcd().client_url(),
          .etcd_tls = cluster().etcd().client_tls(),
          .etcd_prefix = "/host"};
}

std::string SourcePath(const std::string& relative) {
  const char* root = std::getenv("VTENANT_SOURCE_DIR");
  return std::string(root != nullptr ? root : ".") + "/" + relative;
}

std::vector<std::string> CrdManifests() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(SourcePath("charts/vtenant/crds"))) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace vtenant::localenv

// Integration: a virtual control plane beside the host on one etcd.
#include "localenv/testing/virtual_cluster.h"

#include <gtest/gtest.h>

#include "base/eventually.h"
#include "kube/resource.h"
#include "localenv/testing/cluster_test.h"

namespace vtenant::localenv {
namespace {

class VirtualClusterTest : public ClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartCluster("vc", {.controller_manager = false, .node_agent = false});
  }
  static void TearDownTestSuite() { StopCluster(); }
};

TEST_F(VirtualClusterTest, JobsMakePodsInTheVirtualClusterOnly) {
  Result<std::unique_ptr<VirtualCluster>> vc =
      VirtualCluster::Start(VirtualClusterOptionsFor("nlp"));
  ASSERT_TRUE(vc.ok()) << vc.status().ToString();
  kube::Client& virt = (*vc)->client();

  kube::Object job = ParseTestJson(R"({"apiVersion":"batch/v1","kind":"Job",
      "metadata":{"name":"hello","namespace":"default"},
      "spec":{"template":{"spec":{"restartPolicy":"Never",
        "containers":[{"name":"c","image":"busybox"}]}}}})");
  ASSERT_TRUE(virt.Create(kube::resources::kJobs, "default", job).ok());

  // The virtual controller manager makes the Job's pod; the host never sees it.
  EXPECT_TRUE(Eventually([&] {
    Result<kube::ObjectList> pods = virt.List(kube::resources::kPods, "default");
    return pods.ok() && pods->items.size() == 1;
  }));
  Result<kube::ObjectList> host_pods = client().List(kube::resources::kPods, "");
  ASSERT_TRUE(host_pods.ok());
  EXPECT_TRUE(host_pods->items.empty());

  // Its data survives an API server restart (it lives in the shared etcd).
  ASSERT_TRUE((*vc)->RestartApiServer().ok());
  EXPECT_TRUE(virt.Get(kube::resources::kJobs, "default", "hello").ok());
  EXPECT_FALSE(client().Get(kube::resources::kJobs, "default", "hello").ok());
}

}  // namespace
}  // namespace vtenant::localenv

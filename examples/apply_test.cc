// Integration: the GitOps examples against a real API server with the CRDs
// installed. The platform team's kustomizations apply, and applying them a
// second time changes nothing (every object "unchanged"), which is what a
// GitOps controller re-applying every few minutes relies on. The teams'
// workloads pass server-side validation.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "e2e/support/kubectl.h"
#include "localenv/testing/cluster_test.h"
#include "localenv/testing/source_tree.h"

namespace vtenant {
namespace {

class ExamplesApplyTest : public localenv::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartCluster("examples", {.controller_manager = false, .node_agent = false});
  }
  static void TearDownTestSuite() { StopCluster(); }

  void SetUp() override {
    ClusterTest::SetUp();
    const std::string crds = localenv::SourcePath("charts/vtenant/crds");
    if (!std::filesystem::exists(crds + "/vtenant.io_tenants.yaml")) {
      GTEST_SKIP() << "the Tenant CRD (charts/vtenant/crds/vtenant.io_tenants.yaml) is not "
                      "in this tree yet";
    }
    Status installed = e2e::InstallCrds(kubeconfig(), crds);
    ASSERT_TRUE(installed.ok()) << installed.ToString();
  }

  static std::string kubeconfig() { return cluster().api_server().kubeconfig_path(); }
  static std::string Example(const std::string& path) {
    return localenv::SourcePath("examples/tenants/" + path);
  }
};

// Lines of kubectl apply's output that do not end in " unchanged".
std::vector<std::string> ChangedLines(const std::string& out) {
  std::vector<std::string> changed;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && !line.ends_with(" unchanged")) changed.push_back(line);
  }
  return changed;
}

TEST_F(ExamplesApplyTest, ApplyingTwiceChangesNothing) {
  for (const std::string dir : {"", "scenarios/two-gpus"}) {
    SCOPED_TRACE("examples/tenants/" + dir);
    Result<std::string> first = e2e::KubectlOk(kubeconfig(), {"apply", "-k", Example(dir)});
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_FALSE(ChangedLines(*first).empty()) << "the first apply created nothing: " << *first;

    Result<std::string> second = e2e::KubectlOk(kubeconfig(), {"apply", "-k", Example(dir)});
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    EXPECT_TRUE(ChangedLines(*second).empty()) << "the second apply changed:\n" << *second;
    EXPECT_EQ(std::count(second->begin(), second->end(), '\n'),
              std::count(first->begin(), first->end(), '\n'))
        << *second;
  }
  Result<std::string> tenants = e2e::KubectlOk(
      kubeconfig(), {"get", "tenants.vtenant.io", "-o", "jsonpath={.items[*].metadata.name}"});
  ASSERT_TRUE(tenants.ok()) << tenants.status().ToString();
  EXPECT_EQ(*tenants, "lab nlp recsys vision");
  Result<std::string> quota = e2e::KubectlOk(
      kubeconfig(), {"get", "queues.scheduling.run.ai", "ml-org", "-o",
                     "jsonpath={.spec.resources.gpu.quota}/{.spec.resources.gpu.limit}"});
  ASSERT_TRUE(quota.ok()) << quota.status().ToString();
  EXPECT_EQ(*quota, "1/1");
}

TEST_F(ExamplesApplyTest, EachFileAppliesWithDashF) {
  for (const std::string file :
       {"ml-org-queue.yaml", "nlp/tenant.yaml", "vision/tenant.yaml", "recsys/tenant.yaml"}) {
    Result<std::string> applied = e2e::KubectlOk(kubeconfig(), {"apply", "-f", Example(file)});
    EXPECT_TRUE(applied.ok()) << applied.status().ToString();
  }
}

TEST_F(ExamplesApplyTest, TeamWorkloadsPassServerSideValidation) {
  for (const std::string dir :
       {"nlp/workloads", "vision/workloads", "recsys/workloads", "scenarios/burst",
        "scenarios/gpu-memory", "scenarios/gang", "scenarios/two-gpus/fractions"}) {
    Result<std::string> dry =
        e2e::KubectlOk(kubeconfig(), {"apply", "--dry-run=server", "-k", Example(dir)});
    EXPECT_TRUE(dry.ok()) << dir << ": " << dry.status().ToString();
  }
}

}  // namespace
}  // namespace vtenant

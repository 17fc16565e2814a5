// Integration: simulated GPU nodes on a real host cluster. A pod bound to a
// node by a plain binding runs; a Job whose pods ask to finish completes.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "base/eventually.h"
#include "kube/json_builder.h"
#include "localenv/kwok_stages.h"
#include "localenv/testing/cluster_test.h"

namespace vtenant::localenv {
namespace {

using kube::Object;
namespace res = kube::resources;

class SimulatedNodesTest : public ClusterTest {
 protected:
  static void SetUpTestSuite() {
    Result<std::vector<SimulatedNode>> nodes = ParseNodeInventory(R"(
nodes:
- {name: gpu, count: 2, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
)",
                                                                  "test");
    ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
    StartCluster("sim-nodes", {.nodes = *nodes}, {"bind-test", "job-test", "delete-test"});
  }
  static void TearDownTestSuite() { StopCluster(); }
};

TEST_F(SimulatedNodesTest, NodesBecomeReadyWithGpuCapacity) {
  EXPECT_TRUE(Eventually([&] {
    Result<Object> node = client().Get(res::kNodes, "", "gpu-1");
    if (!node.ok()) return false;
    const rapidjson::Value* conditions = kube::Find(*node, {"status", "conditions"});
    if (conditions == nullptr || !conditions->IsArray()) return false;
    for (const auto& c : conditions->GetArray()) {
      if (kube::GetString(c, {"type"}) == "Ready") return kube::GetString(c, {"status"}) == "True";
    }
    return false;
  })) << "node gpu-1 never became Ready; see "
      << cluster().dir() << "/kwok/kwok.log";
  Result<Object> node = client().Get(res::kNodes, "", "gpu-1");
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(kube::GetString(*node, {"status", "allocatable", "nvidia.com/gpu"}), "2");
  EXPECT_EQ(kube::Label(*node, "nvidia.com/gpu.memory").value_or(""), "46068");
  // Registering again is a no-op, not an error.
  Result<std::vector<SimulatedNode>> again = ParseNodeInventory(
      "nodes: [{name: gpu-1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, "
      "gpuMemoryMiB: 46068}]",
      "again");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(RegisterNodes(client(), *again).ok());
}

TEST_F(SimulatedNodesTest, BoundPodRunsWithAnIpAndDeletedPodGoesAway) {
  Object pod = ParseTestJson(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "trainer", "annotations": {"gpu-fraction": "0.5"}},
    "spec": {"schedulerName": "kai-scheduler",
             "containers": [{"name": "main", "image": "pytorch/pytorch"}]}})");
  ASSERT_TRUE(client().Create(res::kPods, "bind-test", pod).ok());
  Status bound = client().Bind("bind-test", "trainer", "gpu-0");
  ASSERT_TRUE(bound.ok()) << bound.ToString();
  EXPECT_TRUE(Eventually([&] {
    Result<Object> p = client().Get(res::kPods, "bind-test", "trainer");
    return p.ok() && kube::GetString(*p, {"status", "phase"}) == "Running" &&
           !kube::GetString(*p, {"status", "podIP"}).empty();
  })) << "bound pod never ran; see "
      << cluster().dir() << "/kwok/kwok.log";
  Result<Object> running = client().Get(res::kPods, "bind-test", "trainer");
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(kube::GetString(*running, {"spec", "nodeName"}), "gpu-0");

  ASSERT_TRUE(client().Delete(res::kPods, "bind-test", "trainer").ok());
  EXPECT_TRUE(Eventually([&] {
    return client().Get(res::kPods, "bind-test", "trainer").status().code() ==
           StatusCode::kNotFound;
  }));
}

// The lines of kwok's log that say a stage failed.
int FailedStages(const std::string& log_path) {
  std::ifstream in(log_path);
  int failed = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("failed to apply stage") != std::string::npos) ++failed;
  }
  return failed;
}

TEST_F(SimulatedNodesTest, DeletedPodsGoAwayEachStagePlayedOnceWithoutErrors) {
  const std::string log = cluster().dir() + "/kwok/kwok.log";
  constexpr int kPods = 12;
  for (int i = 0; i < kPods; ++i) {
    // Half carry a finalizer, as pods of some controllers do.
    kube::JsonObject metadata{{"name", "p" + std::to_string(i)}};
    if (i % 2 == 0) metadata.Set("finalizers", kube::JsonArray{"example.com/keep"});
    Object pod = kube::BuildJson(kube::JsonObject{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", metadata},
        {"spec", kube::JsonObject{{"nodeName", "gpu-1"},
                                  {"containers", kube::JsonArray{kube::JsonObject{
                                                     {"name", "main"}, {"image", "busybox"}}}}}}});
    ASSERT_TRUE(client().Create(res::kPods, "delete-test", pod).ok());
  }
  auto count = [&](const std::string& phase) {
    Result<kube::ObjectList> list = client().List(res::kPods, "delete-test");
    if (!list.ok()) return -1;
    int n = 0;
    for (const Object& p : list->items) {
      if (phase.empty() || kube::GetString(p, {"status", "phase"}) == phase) ++n;
    }
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return count("Running") == kPods; })) << "see " << log;
  const int failed_before = FailedStages(log);

  for (int i = 0; i < kPods; ++i) {
    ASSERT_TRUE(client().Delete(res::kPods, "delete-test", "p" + std::to_string(i)).ok());
  }
  EXPECT_TRUE(Eventually([&] { return count("") == 0; })) << "see " << log;
  // One play per stage and pod: before, every deleted pod was deleted twice,
  // the second time failing with "not found".
  EXPECT_EQ(FailedStages(log), failed_before) << "see " << log;
}

TEST_F(SimulatedNodesTest, JobWhosePodsAskToFinishCompletes) {
  Object job = ParseTestJson(R"({
    "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "finetune"},
    "spec": {"completions": 2, "parallelism": 2, "backoffLimit": 0,
      "template": {
        "metadata": {"annotations": {}},
        "spec": {"restartPolicy": "Never", "nodeName": "gpu-1",
                 "containers": [{"name": "main", "image": "busybox"}]}}}})");
  kube::SetString(job, {"spec", "template", "metadata", "annotations"}, kRunDurationAnnotation,
                  "2s");
  Result<Object> created = client().Create(res::kJobs, "job-test", job);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(Eventually(
      [&] {
        Result<Object> j = client().Get(res::kJobs, "job-test", "finetune");
        return j.ok() && kube::GetInt(*j, {"status", "succeeded"}) == 2;
      },
      std::chrono::seconds(90)))
      << "job never completed; see " << cluster().dir();
}

}  // namespace
}  // namespace vtenant::localenv

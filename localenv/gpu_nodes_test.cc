#include "localenv/gpu_nodes.h"

#include <gtest/gtest.h>

#include "localenv/testing/source_tree.h"

namespace vtenant::localenv {
namespace {

TEST(GpuNodesTest, ParsesTheShippedL40sInventory) {
  Result<std::vector<SimulatedNode>> nodes =
      LoadNodeInventory(SourcePath("examples/nodes/l40s.yaml"));
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 1u);
  const SimulatedNode& n = (*nodes)[0];
  EXPECT_EQ(n.name, "l40s-node");
  EXPECT_EQ(n.cpu_milli, 32000);
  EXPECT_EQ(n.memory_bytes, 256LL << 30);
  EXPECT_EQ(n.gpus, 1);
  EXPECT_EQ(n.gpu_memory_mib, 46068);
}

TEST(GpuNodesTest, CountExpandsAndManifestCarriesGpuLabelsAndCapacity) {
  Result<std::vector<SimulatedNode>> nodes = ParseNodeInventory(R"(
nodes:
- name: a100
  count: 2
  cpu: 64
  memory: 512Gi
  gpus: 8
  gpuProduct: NVIDIA-A100-SXM4-80GB
  gpuMemoryMiB: 81920
  resources: {nvidia.com/mig-1g.10gb: "7"}
  taints: [{key: dedicated, value: ml, effect: NoSchedule}]
)",
                                                                "inline");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[1].name, "a100-1");
  kube::Object node = NodeManifest((*nodes)[0]);
  EXPECT_EQ(kube::Label(node, "nvidia.com/gpu.count").value_or(""), "8");
  EXPECT_EQ(kube::Label(node, "nvidia.com/gpu.product").value_or(""), "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(kube::Label(node, "nvidia.com/gpu.memory").value_or(""), "81920");
  EXPECT_EQ(kube::Label(node, kSimulatedNodeLabel).value_or(""), "true");
  EXPECT_EQ(kube::GetString(node, {"status", "capacity", "nvidia.com/gpu"}), "8");
  EXPECT_EQ(kube::GetString(node, {"status", "allocatable", "cpu"}), "64");
  EXPECT_EQ(kube::GetString(node, {"status", "capacity", "memory"}), "512Gi");
  EXPECT_EQ(kube::GetString(node, {"status", "capacity", "nvidia.com/mig-1g.10gb"}), "7");
  EXPECT_EQ(kube::GetString(node, {"status", "allocatable", "ephemeral-storage"}), "100Gi")
      << "local disk for pods, as a kubelet reports it";
  EXPECT_EQ(kube::GetString(node, {"spec", "taints"}), "");  // an array, not a string
  ASSERT_TRUE(node["spec"]["taints"].IsArray());
  EXPECT_EQ(node["spec"]["taints"].Size(), 1u);
}

struct BadInventory {
  const char* name;
  const char* yaml;
  const char* fragment;
};

class BadInventoryTest : public testing::TestWithParam<BadInventory> {};

TEST_P(BadInventoryTest, NamesTheSourceEntryAndField) {
  Result<std::vector<SimulatedNode>> nodes = ParseNodeInventory(GetParam().yaml, "nodes.yaml");
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find("nodes.yaml"), std::string::npos);
  EXPECT_NE(nodes.status().message().find(GetParam().fragment), std::string::npos)
      << nodes.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadInventoryTest,
    testing::Values(
        BadInventory{"no_list", "hello: 1", "top-level `nodes:`"},
        BadInventory{"bad_disk", "nodes: [{name: x, cpu: 1, memory: 1Gi, ephemeralStorage: big}]",
                     "node \"x\" field ephemeralStorage"},
        BadInventory{"bad_cpu", "nodes: [{name: x, cpu: lots, memory: 1Gi}]",
                     "node \"x\" field cpu"},
        BadInventory{"missing_memory", "nodes: [{name: x, cpu: 1}]", "field memory: missing"},
        BadInventory{"gpu_without_model", "nodes: [{name: x, cpu: 1, memory: 1Gi, gpus: 1}]",
                     "gpuProduct"},
        BadInventory{"negative_gpus", "nodes: [{name: x, cpu: 1, memory: 1Gi, gpus: -2}]",
                     "must not be negative"},
        BadInventory{"bad_taint",
                     "nodes: [{name: x, cpu: 1, memory: 1Gi, taints: [{key: k, effect: Never}]}]",
                     "effect must be"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace vtenant::localenv

// Simulated GPU nodes: an inventory file turned into real Node objects.
//
// Inventory (YAML):
//   nodes:
//   - name: l40s            # with `count: N`, nodes are l40s-0 .. l40s-(N-1)
//     count: 1
//     cpu: "32"             # Kubernetes quantities
//     memory: 256Gi
//     gpus: 1               # gpuProduct and gpuMemoryMiB required when > 0
//     gpuProduct: NVIDIA-L40S
//     gpuMemoryMiB: 46068
//     maxPods: 110          # optional; the default
//     resources: {nvidia.com/mig-1g.10gb: 4}   # optional extra capacity
//     ephemeralStorage: 100Gi   # optional; the default
//     labels: {topology.kubernetes.io/zone: zone-a}
//     taints: [{key: dedicated, value: ml, effect: NoSchedule}]
//
// Each node gets `nvidia.com/gpu` capacity, local disk for pods
// (`ephemeral-storage`, as every kubelet reports it, so pods that ask for
// some are placed as on real nodes) and the labels GPU feature
// discovery would set (nvidia.com/gpu.count, .product, .memory), plus the
// label that hands it to the simulated kubelet (kwok).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/client.h"
#include "kube/object.h"

namespace vtenant::localenv {

inline constexpr char kSimulatedNodeLabel[] = "vtenant.dev/simulated-node";

struct NodeTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

struct SimulatedNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int64_t gpus = 0;
  std::string gpu_product;
  int64_t gpu_memory_mib = 0;
  int64_t max_pods = 110;
  std::string ephemeral_storage = "100Gi";
  std::map<std::string, std::string> extra_resources;  // name → quantity text
  std::map<std::string, std::string> labels;
  std::vector<NodeTaint> taints;
};

// Parses an inventory. InvalidArgument naming `source` and the offending
// entry and field.
Result<std::vector<SimulatedNode>> ParseNodeInventory(std::string_view yaml_text,
                                                      std::string_view source);
// Reads and parses the inventory at `path`; NotFound when it cannot be read.
Result<std::vector<SimulatedNode>> LoadNodeInventory(const std::string& path);

// The Node object for one simulated node: its labels plus the simulated-node,
// hostname, os and arch labels (and the GPU ones), its taints, and status
// capacity equal to allocatable.
kube::Object NodeManifest(const SimulatedNode& node);

// Creates the nodes, or brings existing ones to the inventory's labels,
// taints and capacity: running it twice changes nothing. Labels and taints
// are replaced, not merged: one added to the Node by hand is removed. The
// first error, naming the node.
Status RegisterNodes(kube::Client& client, const std::vector<SimulatedNode>& nodes);

}  // namespace vtenant::localenv

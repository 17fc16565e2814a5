// NodeExtras: what a node gives besides GPUs, CPU, memory and pod slots,
// kept in step as pods are placed and removed: other resources (extended
// resources such as rdma/ib, hugepages, ephemeral-storage; model.h's
// OtherResource) and host ports. Queues do not count these; nodes do, and
// the kubelet refuses a pod the node cannot give them to.
//
// A pod that asks for none costs nothing.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "scheduler-core/model.h"

namespace vtenant::sched {

// What a node lacks for a pod, in kube-scheduler's reasons.
enum class ExtrasShortage : uint8_t {
  kNone,
  kResource,      // too little of another resource left (NodeResourcesFit)
  kHostPort,      // a host port it binds is taken (NodePorts)
  kVolumeCount,   // no more volumes of a CSI driver attach there (NodeVolumeLimits)
  kDeviceClaims,  // too few free devices of a class (DynamicResources)
};

// The prefix of the resources that count a node's attached volumes, one a
// CSI driver ("attachable-volumes-csi-<driver>"), as Kubernetes named them
// in node allocatable; too little of one is kVolumeCount.
inline constexpr std::string_view kAttachableVolumesPrefix = "attachable-volumes-";
// The prefix of the resources that count a node's free devices of a
// DeviceClass; too little of one is kDeviceClaims. No resource name
// Kubernetes allows starts so: a pod may itself ask for a class's extended
// resource by Kubernetes' name for it (deviceclass.resource.kubernetes.io/
// <class>), and that request must not take these counts.
inline constexpr std::string_view kDeviceClassPrefix = "~device-class/";

class NodeExtras {
 public:
  // Counts nothing yet. `snapshot` must outlive it.
  explicit NodeExtras(const Snapshot& snapshot) : snapshot_(&snapshot) {}

  // Whether `pod` asks for any of them.
  bool Concerns(PodId pod) const {
    const PodExtras& x = ExtrasOf(snapshot_->pods[pod]);
    return !x.other_resources.empty() || !x.host_ports.empty();
  }

  // Counts `pod`'s requests and ports on `node` (sign +1), or takes them
  // off (-1).
  void Apply(PodId pod, NodeId node, int sign);

  // What `node` lacks for `pod`, kNone when it lacks nothing.
  ExtrasShortage Shortage(PodId pod, NodeId node) const;

 private:
  static uint64_t Slot(NodeId node, StringId name) { return (uint64_t{node} << 32) | name; }

  const Snapshot* snapshot_;
  // In use per (node, resource or port): milli of a resource, pods of a port.
  std::unordered_map<uint64_t, int64_t> used_;
};

}  // namespace vtenant::sched

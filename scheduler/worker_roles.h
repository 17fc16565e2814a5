// WorkerRoles: KAI Scheduler's --restrict-node-scheduling. A cluster that
// keeps its GPU nodes for GPU work marks its nodes by role: the label
// node-role.kubernetes.io/gpu-worker (any value) where pods asking for a GPU
// may go, node-role.kubernetes.io/cpu-worker where pods asking for none may
// go; a node may carry both. With the restriction on, as in KAI's scheduler:
//   - a node carrying neither label is not the scheduler's: it is left out
//     of scheduling, and the pods on it with it;
//   - a pod asking for any GPU (whole, fraction, GPU memory, MIG) goes only
//     to a gpu-worker node, any other pod only to a cpu-worker node;
//   - the GPUs of a node without the gpu-worker label are no queue's share
//     (sched::Node::gpus_in_capacity).
// Off, the default, every node takes every pod.
//
// The core matches pods to roles by label: a node of a role carries a label
// of the role's own (kGpuWorkerRole, kCpuWorkerRole), which no real label
// can be, and a pod of our own requires its role's.
#pragma once

#include <string>
#include <string_view>

#include "kai/names.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

inline constexpr char kGpuWorkerRole[] = "~gpu-worker";
inline constexpr char kCpuWorkerRole[] = "~cpu-worker";

struct WorkerRoles {
  bool restrict = false;
  // The label keys of the two roles (KAI's --gpu-worker-node-label-key and
  // --cpu-worker-node-label-key).
  std::string gpu_label = kai::kGpuWorkerNodeLabel;
  std::string cpu_label = kai::kCpuWorkerNodeLabel;

  // Whether the node with `labels` is the scheduler's: always when not
  // restricted, else when it carries either role's label.
  bool Schedules(const sched::LabelPairs& labels) const;
  // Whether a node with `labels` carries the GPU role, the CPU role.
  bool IsGpuWorker(const sched::LabelPairs& labels) const;
  bool IsCpuWorker(const sched::LabelPairs& labels) const;

  // The label key of the role `pod` needs (gpu_label when it asks for any
  // GPU, else cpu_label); "" when not restricted.
  std::string_view RoleOf(const sched::PodSpec& pod) const;

  // Readies `node` for the core: the label of each role it carries, and its
  // GPUs left out of capacity when it lacks the GPU role. Nothing when not
  // restricted.
  void MarkNode(sched::NodeSpec* node) const;

  // Holds `pod` to the nodes of its role (a required term on the role's
  // label). Nothing when not restricted.
  void HoldPod(sched::PodSpec* pod) const;

  // Why `pod` cannot be placed when no node carries its role (`gpu_nodes`
  // and `cpu_nodes`: whether some node carries each), for its Event; ""
  // when one does, or when not restricted.
  std::string NoNodeReason(const sched::PodSpec& pod, bool gpu_nodes, bool cpu_nodes) const;
};

}  // namespace vtenant::scheduler

// CoreNodeFromHost: a Kubernetes Node as the scheduler core sees it.
//
// GPUs come from the allocatable (else capacity) `nvidia.com/gpu` and
// `amd.com/gpu`, as KAI counts both; their memory and model from the labels
// GPU feature discovery sets (a node without the memory label gets KAI's
// 100 MiB a device, and still takes whole GPUs and fractions); MIG slices
// from `nvidia.com/mig-<profile>` resources. Every other resource it
// offers (RDMA devices, hugepages, ephemeral-storage, other vendors'
// devices) is counted per node (sched::OtherResource). A cordoned or
// not-Ready node is kept (its pods still count) but takes no new pods.
#pragma once

#include <string_view>

#include "base/status.h"
#include "kube/object.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

// Whether the core counts resource `name` as an OtherResource: any but
// cpu, memory, pods, nvidia.com/gpu, amd.com/gpu and nvidia.com/mig-*,
// which it counts in their own ways.
bool IsOtherResource(std::string_view name);

// Fails with InvalidArgument naming the node and field when a quantity
// cannot be read (such a node is left out of scheduling, with a log).
Result<sched::NodeSpec> CoreNodeFromHost(const rapidjson::Value& node);

}  // namespace vtenant::scheduler

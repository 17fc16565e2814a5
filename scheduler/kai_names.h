// The names the scheduler reads and writes: KAI's, spelled once in
// kai/names.h and kai/preemptibility.h and brought into this namespace, and
// vtenant's own.
#pragma once

#include "kai/names.h"
#include "kai/preemptibility.h"

namespace vtenant::scheduler {

// KAI's.
using kai::IsPreemptibility;
using kai::kAmdGpuResource;
using kai::kCudaDeviceMemoryLimitKey;
using kai::kDefaultQueue;
using kai::kGpuFractionAnnotation;
using kai::kGpuGroupLabel;
using kai::kGpuIndexAnnotation;
using kai::kGpuMemoryAnnotation;
using kai::kGpuMemoryLabel;
using kai::kGpuPortionKey;
using kai::kGpuProductLabel;
using kai::kGpuResource;
using kai::kLastEvictionTimestampAnnotation;
using kai::kLastStartTimestampAnnotation;
using kai::kMigResourcePrefix;
using kai::kMpiJobNameLabel;
using kai::kMpiJobRoleLabel;
using kai::kNonPreemptible;
using kai::kNonPreemptibleOverQuotaReason;
using kai::kNumGpusKey;
using kai::kOverLimitReason;
using kai::kPodGroupAnnotation;
using kai::kPodSchedulingErrorsReason;
using kai::kPreemptibilityLabel;
using kai::kPreemptible;
using kai::kQueueDoesNotExistReason;
using kai::kQueueLabel;
using kai::kReservedGpuAnnotation;
using kai::kSharedGpuConfigMapAnnotation;
using kai::kStalePodGroupTimestampAnnotation;
using kai::kSubGroupLabel;
using kai::kVisibleDevicesKey;

// vtenant's own.
// A PodGroup's schedulingConditions reason (beside KAI's, kai/names.h) when
// its spec cannot be scheduled as written.
inline constexpr char kInvalidPodGroupReason[] = "InvalidPodGroup";
inline constexpr char kFairShareAnnotation[] = "vtenant.io/gpu-fair-share";
// What makes a pod a reservation pod: this label, a vtenant.io key that no
// synced pod can carry, in the reservation namespace, where only the
// scheduler makes pods. ("app" is for people; nothing selects on it.)
inline constexpr char kReservationLabel[] = "vtenant.io/gpu-reservation";
inline constexpr char kReservationLabelValue[] = "true";
inline constexpr char kReservationAppLabel[] = "app";
inline constexpr char kReservationAppValue[] = "vtenant-gpu-reservation";
// On the ConfigMap the binder makes for a GPU-sharing pod: what tells it
// from any other ConfigMap of that name (with its owner reference to the pod).
inline constexpr char kGpuEnvironmentLabel[] = "vtenant.io/gpu-environment";
// On a reservation pod: the device index on its node that it pins.
inline constexpr char kReservationIndexAnnotation[] = "vtenant.io/gpu-index";
// On a node the local environment simulates (kwok): no kubelet, no GPUs
// (the same name as localenv/gpu_nodes.h's, which the scheduler must not
// include).
inline constexpr char kSimulatedNodeLabel[] = "vtenant.dev/simulated-node";

}  // namespace vtenant::scheduler

// The names KAI Scheduler users and tools depend on: annotations, labels and
// resource names, spelled exactly as KAI spells them, in one place.
#pragma once

#include <string_view>

namespace vtenant::scheduler {

// Pods.
inline constexpr char kQueueLabel[] = "kai.scheduler/queue";
inline constexpr char kPodGroupAnnotation[] = "pod-group-name";
// The sub-group (an entry of its PodGroup's spec.subGroups) a pod belongs to.
inline constexpr char kSubGroupLabel[] = "kai.scheduler/subgroup-name";
// On a pod or any of its owners: "preemptible" or "non-preemptible", which
// the pod grouper writes into the PodGroup's spec.preemptibility.
inline constexpr char kPreemptibilityLabel[] = "kai.scheduler/preemptibility";
inline constexpr char kPreemptible[] = "preemptible";
inline constexpr char kNonPreemptible[] = "non-preemptible";
constexpr bool IsPreemptibility(std::string_view v) {
  return v == kPreemptible || v == kNonPreemptible;
}
inline constexpr char kGpuFractionAnnotation[] = "gpu-fraction";
inline constexpr char kGpuMemoryAnnotation[] = "gpu-memory";
inline constexpr char kGpuNumDevicesAnnotation[] = "gpu-fraction-num-devices";
// The GPU a sharing pod was given: device index (comma list for several) on
// its node, and the shared GPU's group, which its reservation pod carries too.
inline constexpr char kGpuIndexAnnotation[] = "runai-gpu";
inline constexpr char kGpuGroupLabel[] = "runai-gpu-group";
// Prefix of the per-pod ConfigMap with the GPU environment; the ConfigMap of
// container i is "<prefix>-<i>" (set by the admission webhook).
inline constexpr char kSharedGpuConfigMapAnnotation[] = "runai/shared-gpu-configmap";
// Set on a reservation pod by its program: the UUID of the GPU it holds.
inline constexpr char kReservedGpuAnnotation[] = "run.ai/reserve_for_gpu_index";

// The environment a GPU-sharing pod sees.
inline constexpr char kVisibleDevicesKey[] = "NVIDIA_VISIBLE_DEVICES";
inline constexpr char kGpuPortionKey[] = "GPU_PORTION";
inline constexpr char kNumGpusKey[] = "RUNAI_NUM_OF_GPUS";

// Nodes and resources.
inline constexpr char kGpuResource[] = "nvidia.com/gpu";
inline constexpr char kMigResourcePrefix[] = "nvidia.com/mig-";
inline constexpr char kGpuMemoryLabel[] = "nvidia.com/gpu.memory";
inline constexpr char kGpuProductLabel[] = "nvidia.com/gpu.product";

// Labels the MPI operator puts on an MPIJob's pods.
inline constexpr char kMpiJobNameLabel[] = "training.kubeflow.org/job-name";
inline constexpr char kMpiJobRoleLabel[] = "training.kubeflow.org/job-role";

// KAI's queue for pods that name none.
inline constexpr char kDefaultQueue[] = "default-queue";

// vtenant's own.
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
inline constexpr char kReservationIndexAnnotation[] = "vtenant.io/gpu-index";
inline constexpr char kSimulatedNodeLabel[] = "vtenant.dev/simulated-node";

}  // namespace vtenant::scheduler

// The names KAI Scheduler users and tools depend on: API versions, labels,
// annotations and resource names, spelled exactly as KAI spells them, once.
// The syncer, the scheduler, the operator, kube/, localenv/ and the CLI
// include this file rather than writing any of them out again.
#pragma once

namespace vtenant::kai {

// API: Queues are cluster-scoped, PodGroups namespaced.
inline constexpr char kApiGroup[] = "scheduling.run.ai";
inline constexpr char kQueueVersion[] = "v2";
inline constexpr char kQueueKind[] = "Queue";
inline constexpr char kQueueResource[] = "queues";
inline constexpr char kPodGroupVersion[] = "v2alpha2";
inline constexpr char kPodGroupApiVersion[] = "scheduling.run.ai/v2alpha2";
inline constexpr char kPodGroupKind[] = "PodGroup";
inline constexpr char kPodGroupResource[] = "podgroups";

// The schedulerName KAI users write, and vtenant-scheduler's by default.
inline constexpr char kSchedulerName[] = "kai-scheduler";

// Pods and their owners.
inline constexpr char kQueueLabel[] = "kai.scheduler/queue";
// KAI's queue for pods that name none.
inline constexpr char kDefaultQueue[] = "default-queue";
// The PodGroup a pod belongs to.
inline constexpr char kPodGroupAnnotation[] = "pod-group-name";
// The sub-group (an entry of its PodGroup's spec.subGroups) a pod belongs to.
inline constexpr char kSubGroupLabel[] = "kai.scheduler/subgroup-name";
// The labels the JobSet controller puts on a JobSet's pods: which
// replicatedJob, and which replica of it (kai/jobset_gang.h).
inline constexpr char kJobSetReplicatedJobLabel[] = "jobset.sigs.k8s.io/replicatedjob-name";
inline constexpr char kJobSetJobIndexLabel[] = "jobset.sigs.k8s.io/job-index";
// The labels and annotation the LeaderWorkerSet controller puts on its
// pods: which replica group, which pod of it ("0": the leader), and the
// group's size (kai/leader_worker_set_gang.h).
inline constexpr char kLwsGroupIndexLabel[] = "leaderworkerset.sigs.k8s.io/group-index";
inline constexpr char kLwsWorkerIndexLabel[] = "leaderworkerset.sigs.k8s.io/worker-index";
inline constexpr char kLwsSizeAnnotation[] = "leaderworkerset.sigs.k8s.io/size";
// On a LeaderWorkerSet or its workerTemplate, or a PyTorchJob's worker
// pod or Worker template: how many workers start together as one segment.
inline constexpr char kSegmentSizeAnnotation[] = "kai.scheduler/segment-size";
// The labels the Kubeflow training operator puts on a job's pods: its
// role ("master", "worker") and its index within the role
// (kai/pytorch_job_gang.h).
inline constexpr char kKubeflowReplicaTypeLabel[] = "training.kubeflow.org/replica-type";
inline constexpr char kKubeflowReplicaIndexLabel[] = "training.kubeflow.org/replica-index";
// KubeRay's label of a pod's group: "headgroup" for the head, else its
// worker group's name (kai/ray_gang.h).
inline constexpr char kRayGroupLabel[] = "ray.io/group";
inline constexpr char kRayHeadGroup[] = "headgroup";
// On a pod or any of its owners: "preemptible" or "non-preemptible"
// (kai/preemptibility.h), which becomes the PodGroup's spec.preemptibility.
inline constexpr char kPreemptibilityLabel[] = "kai.scheduler/preemptibility";
// On a workload that is not a gang by nature (a batch Job, ...): the
// minMember of its PodGroup (kai/min_member.h).
inline constexpr char kBatchMinMemberAnnotation[] = "kai.scheduler/batch-min-member";
// The priority class a PodGroup gets from a label of its top owner or pod,
// when the pod names none; Ray's own label on a RayJob or RayService; and
// the classes KAI's pod grouper gives by default.
inline constexpr char kPriorityClassLabel[] = "priorityClassName";
inline constexpr char kRayPriorityClassLabel[] = "ray.io/priority-class-name";
inline constexpr char kTrainPriorityClass[] = "train";
inline constexpr char kBuildPriorityClass[] = "build";
inline constexpr char kInferencePriorityClass[] = "inference";
// On a PodGroup the pod grouper makes: which object it stands for, as YAML
// (name, uid, group, version, kind), as KAI's grouper writes it.
inline constexpr char kTopOwnerMetadataAnnotation[] = "kai.scheduler/top-owner-metadata";
// The reason of the Warning Event the pod grouper puts on a pod it cannot
// make a PodGroup for, as KAI's grouper names it.
inline constexpr char kPodGrouperWarningReason[] = "PodGrouperWarning";
// On a PodGroup, written by the scheduler (RFC 3339 times, as KAI writes
// them): since when the group has run below its minimum, and when one of
// its pods was last evicted. A restarted scheduler reads them back, so a
// stale gang's grace and a preemption delay do not start over.
inline constexpr char kStalePodGroupTimestampAnnotation[] =
    "kai.scheduler/stale-podgroup-timestamp";
inline constexpr char kLastEvictionTimestampAnnotation[] = "kai.scheduler/last-eviction-timestamp";
// When the scheduler last placed the group's pods (KAI's LastStartTimestamp):
// its minimum runtime, which keeps it from being reclaimed or preempted,
// counts from then.
inline constexpr char kLastStartTimestampAnnotation[] = "kai.scheduler/last-start-timestamp";
// On a pod or any of its owners: durations in Go's syntax that become the
// PodGroup's spec.preemptionDelay and spec.stalenessGracePeriod
// (kai/podgroup_spec.h, WorkloadTimings).
inline constexpr char kPreemptionDelayAnnotation[] = "kai.scheduler/preemption-delay";
inline constexpr char kStalenessGracePeriodAnnotation[] = "kai.scheduler/staleness-grace-period";
// On a pod or any of its owners: "true" leaves the pod to a PodGroup made
// elsewhere; the pod grouper makes none for it.
inline constexpr char kSkipPodGrouperAnnotation[] = "kai.scheduler/skip-podgrouper";
// The workload's user, copied from the pod onto its PodGroup (label and
// annotation) when the top owner has none.
inline constexpr char kUserKey[] = "user";
// On a workload (its top owner, or a bare pod): the topology its pods are
// placed in, and the level (a node label key) they must or should share;
// KAI's pod grouper makes them the PodGroup's spec.topologyConstraint.
inline constexpr char kTopologyAnnotation[] = "kai.scheduler/topology";
inline constexpr char kTopologyRequiredPlacementAnnotation[] =
    "kai.scheduler/topology-required-placement";
inline constexpr char kTopologyPreferredPlacementAnnotation[] =
    "kai.scheduler/topology-preferred-placement";
// On a segmented workload's worker pod or template (LeaderWorkerSet,
// PyTorchJob): the levels each segment's pods must or should share.
inline constexpr char kSegmentTopologyRequiredPlacementAnnotation[] =
    "kai.scheduler/segment-topology-required-placement";
inline constexpr char kSegmentTopologyPreferredPlacementAnnotation[] =
    "kai.scheduler/segment-topology-preferred-placement";
// Labels the MPI operator puts on an MPIJob's pods.
inline constexpr char kMpiJobNameLabel[] = "training.kubeflow.org/job-name";
inline constexpr char kMpiJobRoleLabel[] = "training.kubeflow.org/job-role";

// Why a PodGroup waits, in KAI's words: the `reason` of an entry of
// status.schedulingConditions[].reasons (beside its message). KAI's own
// suites wait for OverLimit and NonPreemptibleOverQuota.
inline constexpr char kOverLimitReason[] = "OverLimit";
inline constexpr char kNonPreemptibleOverQuotaReason[] = "NonPreemptibleOverQuota";
inline constexpr char kQueueDoesNotExistReason[] = "QueueDoesNotExist";
inline constexpr char kPodSchedulingErrorsReason[] = "PodSchedulingErrors";

// A pod's share of GPUs (kai/gpu_request.h reads them).
inline constexpr char kGpuFractionAnnotation[] = "gpu-fraction";
inline constexpr char kGpuMemoryAnnotation[] = "gpu-memory";
inline constexpr char kGpuFractionNumDevicesAnnotation[] = "gpu-fraction-num-devices";
// The container (or init container) that uses the share, by name; the
// first container when absent.
inline constexpr char kGpuFractionContainerNameAnnotation[] = "gpu-fraction-container-name";

// GPU sharing as KAI's binder does it. runai-gpu: the GPU a sharing pod was
// given, its device index (comma list for several) on its node.
// runai-gpu-group: the shared GPU's group, on its reservation pod and, as
// KAI's binder writes it, on each pod that shares it (per device,
// runai-gpu-group/<group>, for a pod on several).
inline constexpr char kGpuIndexAnnotation[] = "runai-gpu";
inline constexpr char kGpuGroupLabel[] = "runai-gpu-group";
// Prefix of the sharing pod's two ConfigMaps, set by the admission webhook
// (kai/gpu_environment.h names them).
inline constexpr char kSharedGpuConfigMapAnnotation[] = "runai/shared-gpu-configmap";
// Set on a reservation pod by its program: the UUID of the GPU it holds.
inline constexpr char kReservedGpuAnnotation[] = "run.ai/reserve_for_gpu_index";
// The environment a GPU-sharing pod sees.
inline constexpr char kVisibleDevicesKey[] = "NVIDIA_VISIBLE_DEVICES";
inline constexpr char kGpuPortionKey[] = "GPU_PORTION";
inline constexpr char kNumGpusKey[] = "RUNAI_NUM_OF_GPUS";
// With KAI's hamicore plugins: the GPU memory HAMi-core (libvgpu.so, which
// the node preloads into CUDA programs) lets the share container allocate,
// "<MiB>m".
inline constexpr char kCudaDeviceMemoryLimitKey[] = "CUDA_DEVICE_MEMORY_LIMIT";

// Resources, and the node labels NVIDIA's GPU feature discovery sets, which
// KAI reads.
inline constexpr char kGpuResource[] = "nvidia.com/gpu";
// AMD's device plugin's resource, which KAI counts as GPUs beside NVIDIA's:
// whole devices in a pod's request, a node's GPUs and a queue's quota.
inline constexpr char kAmdGpuResource[] = "amd.com/gpu";
// "nvidia.com/mig-<g>g.<m>gb": a MIG slice of g compute units.
inline constexpr char kMigResourcePrefix[] = "nvidia.com/mig-";
inline constexpr char kGpuMemoryLabel[] = "nvidia.com/gpu.memory";  // MiB
inline constexpr char kGpuProductLabel[] = "nvidia.com/gpu.product";
inline constexpr char kGpuCountLabel[] = "nvidia.com/gpu.count";
inline constexpr char kGpuPresentLabel[] = "nvidia.com/gpu.present";
// With KAI's --restrict-node-scheduling, the node labels (any value) that
// mark where GPU pods and where CPU-only pods may go; a node with neither is
// not the scheduler's.
inline constexpr char kGpuWorkerNodeLabel[] = "node-role.kubernetes.io/gpu-worker";
inline constexpr char kCpuWorkerNodeLabel[] = "node-role.kubernetes.io/cpu-worker";

// KAI's scheduling shards: the label (--nodepool-label-key) whose value
// names the node pool of a node, Queue, PodGroup or pod; a scheduler of
// --partition-label-value V takes those labelled V, the default one those
// without the label.
inline constexpr char kNodePoolLabel[] = "kai.scheduler/node-pool";

}  // namespace vtenant::kai

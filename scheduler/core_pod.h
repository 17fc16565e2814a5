// CorePodFromHost: a Kubernetes Pod as the scheduler core sees it.
//
// Every pod on the cluster matters to the scheduler: its own pods
// (schedulerName matches) are scheduled; pods bound by anyone else hold
// node resources (whole GPUs, CPU, memory: a GPU fraction, GPU memory or a
// pinned device they claim by annotation is not theirs to claim, so it is
// not read); the reservation pods that pin shared GPUs, recognised only in
// the reservation namespace and by label vtenant.io/gpu-reservation, are
// accounted through the sharing pods instead; finished pods hold nothing.
// Translation happens once per informer event, not once per cycle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "kai/gpu_request.h"
#include "kai/names.h"
#include "kube/object.h"
#include "scheduler-core/snapshot_builder.h"
#include "scheduler/device_claims.h"
#include "scheduler/node_affinity.h"
#include "scheduler/pod_terms.h"
#include "scheduler/volume_claims.h"

namespace vtenant::scheduler {

struct CorePod {
  enum class Role {
    kOurs,         // schedulerName is ours: we place it
    kOthers,       // bound by another scheduler (or by hand): holds resources
    kReservation,  // our GPU reservation pod: its GPU is the sharing pods'
    kFinished,     // Succeeded or Failed: holds nothing
  };
  Role role = Role::kOurs;
  std::string key;  // "namespace/name"
  std::string uid;
  // The request, selectors, tolerations and times; `spec.name` is the key.
  // group, queue and the running placement are left to the caller, which
  // knows the PodGroups, Queues and devices. spec.subgroup is the label
  // kai.scheduler/subgroup-name as written; whether the pod's group has
  // that sub-group is the caller's to check too.
  sched::PodSpec spec;
  // Its labels, and its pod affinity, anti-affinity and topology spread
  // (pod_terms.h; their keys are in spec.affinity, anti_affinity,
  // preferred and spread).
  // Which sets it is in (spec.marks) depends on every pod's terms: the
  // view works them out (pod_sets.h). Not read for finished pods.
  kube::Labels labels;
  InterPodTerms terms;
  // Required node affinity the core cannot express itself (several terms,
  // operators other than In, matchFields); empty otherwise, the simple form
  // being in spec.node_affinity_in. The view resolves it to node names.
  NodeAffinity affinity;
  std::string pod_group;  // annotation pod-group-name, "" when absent
  std::string queue;      // label kai.scheduler/queue, "" when absent
  bool has_controller_owner = false;
  bool terminating = false;  // deletionTimestamp set: leaving, still holds resources
  bool succeeded = false;    // phase Succeeded (role kFinished)
  // spec.schedulingGates is not empty: the pod may not be bound yet (the
  // API server refuses its binding) and is not scheduled until they go.
  bool gated = false;
  std::string node;                  // spec.nodeName: bound when not empty
  std::vector<int> gpu_indices;      // annotation runai-gpu, for sharing pods
  std::string shared_gpu_configmap;  // annotation runai/shared-gpu-configmap
  // The ConfigMaps of its namespace the pod cannot start without, as KAI's
  // predicate reads them: those of mounted volumes (configMap and projected
  // sources), env valueFrom.configMapKeyRef and envFrom.configMapRef of its
  // containers, init and ephemeral containers, unless optional; a sharing
  // pod's own GPU ConfigMaps (named from shared_gpu_configmap), which the
  // binder makes, are left out. Sorted, each once; read for our pods only.
  std::vector<std::string> required_configmaps;
  // The PersistentVolumeClaims its volumes name (volume_claims.h); read for
  // pods that are ours or another scheduler's and not finished (their
  // volumes count against a node's CSI attach limits, attach_limits.h).
  std::vector<PodClaim> claims;
  // The drivers of its inline CSI volumes (attach_limits.h), read as
  // `claims` is.
  std::vector<std::string> inline_csi_drivers;
  // Its dynamic resource claims (spec.resourceClaims; device_claims.h),
  // read as `claims` is.
  std::vector<PodDeviceClaim> device_claims;
  // The container whose environment names the pod's GPU
  // (kai::ShareContainer; read only when shared_gpu_configmap is set).
  kai::ContainerRef share_container;
  int32_t priority = 0;  // spec.priority (from the priority class)
  // The class KAI's pod grouper gives the PodGroup of a bare pod:
  // spec.priorityClassName, else label priorityClassName, else "train".
  // What a pod not yet in a PodGroup is scheduled as (ClusterView), so that
  // it keeps its priority when its group comes.
  std::string priority_class;
  // Label kai.scheduler/preemptibility when it holds one of KAI's two
  // values, else "": what a pod not yet in a PodGroup is scheduled as
  // (its PodGroup, once made, carries the same).
  std::string preemptibility;
  // Reservation pods: the device index they pin (annotation
  // vtenant.io/gpu-index; -1 when unreadable) and the UUID their program
  // published (annotation run.ai/reserve_for_gpu_index).
  int reservation_index = -1;
  std::string reserved_gpu_uuid;
  // Why the pod cannot be scheduled as written (a malformed GPU request,
  // a malformed placement rule), for an Event; OK otherwise.
  Status problem;
};

struct CorePodOptions {
  std::string scheduler_name = kai::kSchedulerName;
  std::string reservation_namespace = "vtenant-reservation";
};

// Whether `pod`'s spec.schedulingGates holds a gate (CorePod::gated).
bool HasSchedulingGates(const rapidjson::Value& pod);

// Translates `pod`. Never fails: what cannot be read lands in `problem`.
CorePod CorePodFromHost(const rapidjson::Value& pod, const CorePodOptions& options);

// Seconds since the epoch of an RFC 3339 timestamp ("2026-12-01T09:00:00Z");
// 0 when `text` is empty or unreadable.
int64_t ParseTimestamp(std::string_view text);

// "0,1" -> {0, 1}; "" -> {}. InvalidArgument naming the runai-gpu
// annotation on anything else.
Result<std::vector<int>> ParseGpuIndices(std::string_view text);

}  // namespace vtenant::scheduler

// The scheduler's snapshot of the cluster: what is there and what is asked.
//
// Everything refers to everything else by dense index (NodeId, QueueId, ...)
// into the vectors of Snapshot, so a scheduling cycle walks arrays instead of
// looking up names. Build snapshots with SnapshotBuilder, which resolves
// names, fills the derived fields and validates; code that fills a Snapshot by
// hand must call Snapshot::Finalize() and Validate() itself.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "scheduler-core/interner.h"
#include "scheduler-core/resources.h"

namespace vtenant::sched {

using NodeId = uint32_t;
using DeviceId = uint32_t;
using QueueId = uint32_t;
using GroupId = uint32_t;
using PodId = uint32_t;
using ShapeId = uint32_t;
inline constexpr uint32_t kNone = UINT32_MAX;

// A node holds at most this many GPU devices, so a pod's devices fit one
// 64-bit mask relative to the node's first device.
inline constexpr int kMaxDevicesPerNode = 64;

// The most GPUs a pod's dynamic resource claims may charge its queue: far
// above any node's, low enough that no sum of them overflows.
inline constexpr int32_t kMaxClaimGpus = 1 << 16;

struct Label {
  StringId key = kNoString;
  StringId value = kNoString;
  bool operator==(const Label&) const = default;
  auto operator<=>(const Label&) const = default;
};

enum class TaintEffect : uint8_t { kNoSchedule, kPreferNoSchedule, kNoExecute };

struct Taint {
  StringId key = kNoString;
  StringId value = kNoString;
  TaintEffect effect = TaintEffect::kNoSchedule;
};

struct Toleration {
  StringId key = kNoString;  // kNoString with `exists`: tolerates every taint
  bool exists = false;       // operator Exists (value ignored) instead of Equal
  StringId value = kNoString;
  std::optional<TaintEffect> effect;  // empty: every effect
  bool operator==(const Toleration&) const = default;
};

// One physical GPU (or, with the MIG single strategy, one MIG slice exposed
// as nvidia.com/gpu). Devices of a node are contiguous in Snapshot::devices.
struct GpuDevice {
  NodeId node = kNone;
  int32_t memory_mib = 0;      // label nvidia.com/gpu.memory
  StringId model = kNoString;  // label nvidia.com/gpu.product
};

// MIG mixed strategy: the node exposes nvidia.com/mig-<g>g.<m>gb counts.
struct MigSlot {
  StringId profile = kNoString;  // "1g.5gb"
  int32_t capacity = 0;
  Milli gpu_milli_each = 0;  // compute slices g of 7, as milli-GPU (1g = 143m)
};

// An amount of a resource the core counts per node but no queue: an
// extended resource (rdma/ib, amd.com/gpu), hugepages, ephemeral-storage;
// in thousandths of the quantity (milli), as Kubernetes compares them.
struct OtherResource {
  StringId name = kNoString;
  int64_t milli = 0;
  bool operator==(const OtherResource&) const = default;
};

struct Node {
  std::string name;
  int64_t cpu_milli = 0;  // allocatable
  int64_t memory_bytes = 0;
  int32_t max_pods = 110;
  bool schedulable = true;  // false for cordoned nodes
  // False: its GPUs (devices and MIG slices) are left out of the cluster's
  // capacity that fair shares divide, though pods that may use them still
  // can (KAI's --restrict-node-scheduling, on a node not marked for GPU work).
  bool gpus_in_capacity = true;
  DeviceId first_device = 0;
  int32_t num_devices = 0;
  std::vector<Label> labels;  // sorted by key
  std::vector<Taint> taints;
  std::vector<MigSlot> mig;
  std::vector<OtherResource> other_resources;  // allocatable, sorted by name
  // GPUs its ResourceSlices publish (dynamic resource allocation): counted
  // in the cluster's capacity as devices are, though claims, not the
  // core's devices, give them out (other_resources count them per class).
  int32_t claim_gpus = 0;
};

// The value of `node`'s label `key`, kNoString when it has none. Its
// labels must be sorted by key, as Finalize and the builder leave them.
inline StringId LabelValue(const Node& node, StringId key) {
  auto it = std::lower_bound(node.labels.begin(), node.labels.end(), Label{key, 0});
  return it != node.labels.end() && it->key == key ? it->value : kNoString;
}

// One resource of a KAI Queue spec (spec.resources.<r>): quota is the
// guaranteed ("deserved") amount, limit the most the queue may use, weight
// its share of what is left over after quotas. -1 means unlimited.
struct QueueResource {
  int64_t quota = 0;
  int64_t limit = kUnlimited;
  // overQuotaWeight in thousandths (KAI allows fractional weights).
  int64_t over_quota_weight_milli = 1000;
  bool operator==(const QueueResource&) const = default;
};

struct Queue {
  std::string name;
  QueueId parent = kNone;
  std::vector<QueueId> children;  // derived by Finalize
  std::array<QueueResource, kNumResources> resources{};
  int32_t priority = 0;
  // Seconds; empty inherits the parent's (root default 0); -1 never.
  std::optional<int64_t> preempt_min_runtime_s;
  std::optional<int64_t> reclaim_min_runtime_s;
  int64_t creation_time = 0;
  // What its subtree held over the usage window, per resource, in parts
  // per million of the cluster's capacity then (KAI's time-based
  // fairshare); zero without history. Lowers its over-quota share
  // (fair_share.h).
  ResourceVector usage_ppm;
};

// The most usage a queue may carry: a thousand clusters' worth, far above
// any real history (a cluster that shrank), low enough that the fair
// share's weights never overflow.
inline constexpr int64_t kMaxUsagePpm = int64_t{1'000'000} * 1000;

// Where a job's pods, or a sub-group's, must (required) or should
// (preferred) sit together: in one domain of a topology level. A level is a
// node label key ("topology.kubernetes.io/zone"), a domain one of its values.
struct TopologyConstraint {
  StringId required_level = kNoString;
  StringId preferred_level = kNoString;
  bool empty() const { return required_level == kNoString && preferred_level == kNoString; }
  bool operator==(const TopologyConstraint&) const = default;
};

// A sub-group that holds pods (KAI's PodSet): satisfied when `min_member`
// of its pods run. `parent` indexes the group's subgroup_sets; kNoParent:
// it sits in the group itself.
inline constexpr int32_t kNoParent = -1;
struct SubGroup {
  std::string name;
  int32_t min_member = 0;
  int32_t parent = kNoParent;
  // Its own constraint, within the group's and its sets' (KAI's
  // subGroups[].topologyConstraint).
  TopologyConstraint topology;
  bool operator==(const SubGroup&) const = default;
};

// A sub-group of sub-groups (KAI's SubGroupSet): satisfied when
// `min_sub_group` of its direct children are; kAllChildren: every one.
inline constexpr int32_t kAllChildren = -1;
struct SubGroupSet {
  std::string name;
  int32_t parent = kNoParent;
  int32_t min_sub_group = kAllChildren;
  TopologyConstraint topology;  // as SubGroup's
  bool operator==(const SubGroupSet&) const = default;
};

// KAI's priority classes: train (50) is preemptible, build (100) and
// inference (125) are not. A job that does not say whether it may be
// preempted is preemptible exactly when its priority is below this.
inline constexpr int32_t kNonPreemptiblePriority = 100;
inline bool PreemptibleByDefault(int32_t priority) { return priority < kNonPreemptiblePriority; }

// A job: the unit KAI orders, gangs and evicts (KAI PodGroup).
struct PodGroup {
  std::string name;
  QueueId queue = kNone;
  int32_t min_member = 1;
  int32_t priority = 0;
  bool preemptible = true;
  int64_t creation_time = 0;
  // The leaves, and the sub-groups above them; the group itself is
  // satisfied when min_sub_group of its direct children are (subgroup_tree.h).
  std::vector<SubGroup> subgroups;
  std::vector<SubGroupSet> subgroup_sets;
  int32_t min_sub_group = kAllChildren;
  TopologyConstraint topology;
  // When the group's running pods fell below minMember; -1 when they did not.
  int64_t stale_since = -1;
  // How long (seconds) it may run so before it is evicted (KAI's
  // spec.stalenessGracePeriod); unset: Options::stale_gang_grace_s;
  // negative: never.
  std::optional<int64_t> stale_grace_s;
  // KAI's spec.preemptionDelay (seconds; 0: none): how long after
  // max(creation_time, last_eviction_time) the job may make room for itself
  // by evicting others (consolidation, reclaim, preemption). Taking free
  // room, and being evicted itself, are not delayed.
  int64_t preemption_delay_s = 0;
  int64_t last_eviction_time = 0;  // when one of its pods was last evicted; 0: never
  // When the scheduler last placed its pods (KAI's LastStartTimestamp); 0:
  // never. Its running pods count as started no earlier, so a job bound a
  // moment ago is within its queue's minimum runtime (a pod's own start
  // time may be long before: a waiting pod has none, and counts from its
  // creation).
  int64_t last_start_time = 0;
  std::vector<PodId> pods;  // derived by Finalize, in creation order

  // Whether the group, or any of its sub-groups, has a topology constraint.
  bool HasTopology() const;
};

struct PodRequest {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int32_t whole_gpus = 0;            // nvidia.com/gpu limit
  Milli gpu_fraction = 0;            // annotation gpu-fraction, per device, (0, 1000]
  int32_t gpu_memory_mib = 0;        // annotation gpu-memory, per device
  int32_t num_devices = 1;           // annotation gpu-fraction-num-devices
  StringId mig_profile = kNoString;  // nvidia.com/mig-<profile>
  int32_t mig_count = 0;
  Milli mig_milli_each = 0;  // MigProfileGpuMilli of the profile, for accounting
  // GPUs its dynamic resource claims hold or ask for, charged to its queue
  // as whole GPUs (KAI counts DRA GPUs so); the devices themselves are
  // counted as other resources, per device class.
  int32_t claim_gpus = 0;

  bool IsShared() const { return gpu_fraction > 0 || gpu_memory_mib > 0; }
  bool operator==(const PodRequest&) const = default;
};

// Where a running (or just placed) pod sits. `portion` is the share of each
// device in device_mask for a GPU-sharing pod, 1000 for whole devices.
struct Allocation {
  NodeId node = kNone;
  uint64_t device_mask = 0;  // bit i = device first_device + i of the node
  Milli portion = 0;
  bool operator==(const Allocation&) const = default;
};

enum class PodPhase : uint8_t { kPending, kRunning };

// nodeAffinity's required "key In (values)": the node's label value must be
// one of `values` (sorted).
struct LabelIn {
  StringId key = kNoString;
  std::vector<StringId> values;
  bool operator==(const LabelIn&) const = default;
};

// A required inter-pod term (pod affinity or anti-affinity): `key` names a
// set of pods, `level` a node label key whose values are the domains
// (kubernetes.io/hostname: each node its own). Which pods are in a key's
// set is decided outside the core, from labels and namespaces, and given
// as each pod's `marks`. A node without the `level` label is in no domain.
struct PodTerm {
  StringId key = kNoString;
  StringId level = kNoString;
  bool operator==(const PodTerm&) const = default;
};

// A preferred inter-pod term: a node scores `weight` for each placed pod
// of `key` in its domain of `level`; negative for anti-affinity.
struct PreferredTerm {
  StringId key = kNoString;
  StringId level = kNoString;
  int32_t weight = 0;
  bool operator==(const PreferredTerm&) const = default;
};

// A required topology spread constraint (whenUnsatisfiable DoNotSchedule):
// once the pod is placed, the placed pods of `key` in the node's domain of
// `level` may exceed those of the emptiest eligible domain by at most
// `max_skew`. Eligible are the domains of the nodes the pod could be given
// by its node selector and affinity (unless !honor_affinity) and, with
// honor_taints, its tolerations; with fewer of them than `min_domains`,
// the emptiest counts as holding none. A node without the label is refused.
struct SpreadTerm {
  StringId key = kNoString;
  StringId level = kNoString;
  int32_t max_skew = 1;
  int32_t min_domains = 1;
  bool honor_affinity = true;
  bool honor_taints = false;
  bool operator==(const SpreadTerm&) const = default;
};
inline constexpr size_t kMaxSpreadTerms = 32;  // a pod's, at most

// The rarer parts of a pod (Pod::extras).
struct PodExtras {
  // The keys whose set holds this pod (sorted, each once).
  std::vector<StringId> marks;
  // Required pod affinity: the pod goes only to a node where, for each
  // term, a placed pod of the term's key is in the node's domain of its
  // level. The terms share one key, the set of pods that match all of the
  // pod's terms, as kube-scheduler counts them. While no placed pod is of
  // that key, a pod that is itself of it may go to any node that has every
  // level (the first of a group that wants to be together).
  std::vector<PodTerm> affinity;
  // Required pod anti-affinity: not into a domain that holds a placed pod
  // of a term's key; and, both ways, a pod of a key does not go into a
  // domain where a placed pod holds a term of that key.
  std::vector<PodTerm> anti_affinity;
  // Preferred pod affinity and anti-affinity: among the nodes it fits, the
  // pod goes to those of the highest score first, as KAI ranks them above
  // every placement policy (the policy picks among equals).
  std::vector<PreferredTerm> preferred;
  std::vector<SpreadTerm> spread;
  // Sets of pods it must share a domain of the level with, each on its
  // own (the pods that share a resource claim no bind has allocated yet,
  // on the node level): it goes only where a placed pod of the set is,
  // or, while none is, anywhere that has the level. The scheduler gives
  // it, not the pod's spec, so it fails with a reason of its own.
  std::vector<PodTerm> together;
  // Other resources it requests (sorted by name), and the host ports it
  // binds ("TCP/8080": protocol and port; sorted): a node gives each port
  // to one pod at a time.
  std::vector<OtherResource> other_resources;
  std::vector<StringId> host_ports;

  bool empty() const {
    return marks.empty() && affinity.empty() && anti_affinity.empty() && preferred.empty() &&
           spread.empty() && together.empty() && other_resources.empty() && host_ports.empty();
  }
};

struct Pod {
  std::string name;
  GroupId group = kNone;
  int32_t subgroup = -1;  // index into the group's subgroups, -1 none
  PodRequest request;
  std::vector<Label> node_selector;  // sorted by key
  std::vector<LabelIn> node_affinity;
  std::vector<Toleration> tolerations;
  // Its inter-pod terms, topology spread, other resources and host ports:
  // what few pods ask, kept apart so the record every fit check reads
  // stays small. Null when it asks none of it (ExtrasOf).
  std::shared_ptr<PodExtras> extras;
  int64_t creation_time = 0;
  PodPhase phase = PodPhase::kPending;
  Allocation allocation;  // meaningful when running
  int64_t start_time = 0;
  // Pods with equal request, node selector, required node affinity,
  // tolerations and extras share a shape: if one cannot be placed,
  // neither can the next one. Derived by Finalize.
  ShapeId shape = kNone;
};

// Sorts `resources` by name, as nodes and pods keep them.
void SortOtherResources(std::vector<OtherResource>& resources);

// Sorts what PodExtras keeps sorted: marks and host ports (each once),
// other resources by name.
void SortExtras(PodExtras& extras);

// `pod`'s extras, empty ones when it has none.
inline const PodExtras& ExtrasOf(const Pod& pod) {
  static const PodExtras kNone;
  return pod.extras ? *pod.extras : kNone;
}

struct Snapshot {
  int64_t now = 0;  // seconds, same clock as the times above
  std::vector<Node> nodes;
  std::vector<GpuDevice> devices;
  std::vector<Queue> queues;
  std::vector<PodGroup> groups;
  std::vector<Pod> pods;
  Interner strings;
  int32_t num_shapes = 0;  // derived by Finalize

  // Derives children, group pod lists (each in creation order) and (unless
  // the caller keeps its own, consistent with num_shapes) shapes; sorts
  // node labels, node selectors and affinity values. Run it again after
  // changing any of the vectors; it checks nothing (Validate does).
  void Finalize(bool derive_shapes = true);

  bool IsLeaf(QueueId q) const { return queues[q].children.empty(); }
};

// The bytes of everything in `pod` that decides where it may go (request,
// node selector, affinity, tolerations; labels sorted): pods with equal keys
// share a shape. Finalize derives shapes from it; Universe keeps its own.
std::string ShapeKey(const Pod& pod);

// The checks Validate runs on one pod's request, for callers adding pods
// one at a time: InvalidArgument naming the pod and the field, else Ok.
Status CheckPodRequest(const Pod& pod);

// Checks every rule the scheduler relies on, on a Finalized snapshot:
// InvalidArgument for the first broken one, the message naming the object
// and field ("pod train-0: gpu-fraction 1500m is outside (0, 1000m]").
// RunCycle and the actions assume a snapshot that passed it.
Status Validate(const Snapshot& snapshot);

// MIG compute slices as milli-GPU: "3g.20gb" -> 3/7 of a GPU, rounded up.
// Reads the slice count before the first 'g' (1 to 7) and asks only that
// "gb" follows, so suffixed profiles ("1g.10gb+me") read too;
// InvalidArgument otherwise.
Result<Milli> MigProfileGpuMilli(std::string_view profile);

// What the pod's GPU request costs before we know its device, its claims'
// GPUs included. A gpu-memory request is priced on the largest device of
// the cluster (its cheapest possible placement); once placed, the real
// portion is used.
Milli EstimatedGpuMilli(const PodRequest& request, int32_t largest_device_mib);

// The memory of the largest of `devices` (MiB), 0 for none: what
// EstimatedGpuMilli prices a gpu-memory request on.
int32_t LargestDeviceMib(const std::vector<GpuDevice>& devices);

// Portion of one device of `device_mib` MiB that the request takes per device:
// the fraction itself, or ceil(memory * 1000 / device_mib) for gpu-memory (so
// memory is never overcommitted). More than 1000 means it does not fit.
Milli PortionOnDevice(const PodRequest& request, int32_t device_mib);

}  // namespace vtenant::sched

// What is free and who holds what, during one scheduling cycle.
//
// Built once from a Snapshot (running pods applied), then changed only by
// Place and Remove, which keep every derived total (node free, device use,
// queue allocation up the tree, gang member counts) in step. The two node
// indexes (free GPU, shared devices) catch up lazily, when next read: most
// changes in a busy cycle are trial evictions rolled back before anyone
// looks, and those then cost the indexes nothing.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "scheduler-core/model.h"
#include "scheduler-core/node_extras.h"
#include "scheduler-core/pod_terms.h"
#include "scheduler-core/room_index.h"

namespace vtenant::sched {

struct NodeFree {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  // Pod slots left (the node's max pods): each placed pod takes one, and so
  // does each shared device in use, for the reservation pod that pins it.
  int32_t pods = 0;
  Milli gpu = 0;  // sum of free portions of the node's devices
};

// What the fit checks and the node changes read of a Node record, packed:
// 16 bytes a node, where the record spans three cache lines.
struct NodeBrief {
  DeviceId first_device = 0;
  int32_t num_devices = 0;
  int32_t device_memory_mib = 0;  // of its first device (a node's are of one model); 0 without
  bool schedulable = true;
  bool tainted = false;  // has taints
};

// Not thread-safe, not even for readers: ByFreeGpu and SharedDevices are
// const but bring the indexes up to date.
class ClusterState {
 public:
  // The state with the snapshot's running pods placed. `snapshot` must be
  // Finalized, pass Validate and outlive the state.
  explicit ClusterState(const Snapshot& snapshot);

  const Snapshot& snapshot() const { return *snapshot_; }

  // Places a pod that is not placed; the caller has checked that it fits
  // (nothing here checks it). Actions place through their Statement, which
  // can roll it back.
  void Place(PodId pod, const Allocation& allocation);
  // Takes a placed pod off its node; the pod must be placed.
  void Remove(PodId pod);

  // For a what-if fit test: takes a placed pod's resources off its node
  // alone (node free, devices, MIG, GPU room), leaving its placement, queue
  // and gang totals, the indexes and the change log as they are. Until
  // PutBackAfterTrial(pod) undoes it, only the node questions (Free,
  // GpuRoom, DeviceUsed, DeviceWhole, MigFree) answer as if the pod were
  // gone, and nothing else may be asked or changed. Cheaper than an
  // eviction rolled back, and leaves the state exactly as it was.
  void LiftForTrial(PodId pod);
  void PutBackAfterTrial(PodId pod);

  bool IsPlaced(PodId pod) const { return placed_[pod]; }
  // Where the pod was last placed (also after a Remove, until placed again).
  Allocation AllocationOf(PodId pod) const {
    const PodSlot& slot = pods_[pod];
    return {slot.node, slot.device_mask, slot.portion};
  }

  const NodeFree& Free(NodeId node) const { return node_free_[node]; }
  const NodeBrief& Brief(NodeId node) const { return node_brief_[node]; }
  // The GPU a node can still give: the free portions of its devices, none
  // counted below zero. Free(node).gpu less what over-full devices (a pod
  // nominated onto a GPU its victim still holds, pods bound by others)
  // are over by; the same for every node that is not over-full.
  Milli GpuRoom(NodeId node) const { return gpu_room_[node]; }
  Milli DeviceUsed(DeviceId device) const { return device_used_[device]; }
  // A device held whole (nvidia.com/gpu) rather than shared by fractions.
  bool DeviceWhole(DeviceId device) const { return device_whole_[device]; }
  int32_t MigFree(NodeId node, size_t slot) const { return mig_free_[mig_offset_[node] + slot]; }

  // Subtree totals of placed pods, per queue.
  const ResourceVector& QueueAllocated(QueueId q) const { return queue_allocated_[q]; }
  // Everything placed, over all queues.
  const ResourceVector& QueueAllocatedTotal() const { return total_allocated_; }
  const ResourceVector& QueueAllocatedNonPreemptible(QueueId q) const {
    return queue_nonpreemptible_[q];
  }

  // Where the placed pods stand for the inter-pod terms (pod affinity and
  // anti-affinity, topology spread).
  const PodTermCounts& Terms() const { return terms_; }
  // Other resources and host ports in use per node.
  const NodeExtras& Extras() const { return extras_; }
  // Whether the inter-pod terms and the nodes' other resources and host
  // ports let `pod` go to `node` (the rest of the fit is Placer::Check's).
  bool Admits(PodId pod, NodeId node) const {
    return terms_.Refusal(pod, node) == TermRefusal::kNone &&
           extras_.Shortage(pod, node) == ExtrasShortage::kNone;
  }

  int32_t GroupPlaced(GroupId g) const { return group_placed_[g]; }
  int32_t SubGroupPlaced(GroupId g, int32_t sub) const {
    return subgroup_placed_[subgroup_offset_[g] + sub];
  }
  // Every leaf sub-group's SubGroupPlaced, in the group's order.
  std::span<const int32_t> SubGroupsPlaced(GroupId g) const {
    return {subgroup_placed_.data() + subgroup_offset_[g],
            subgroup_offset_[g + 1] - subgroup_offset_[g]};
  }
  // True when the group has its minMember placed and its sub-group tree is
  // satisfied (subgroup_tree.h).
  bool GangSatisfied(GroupId g) const;

  // Schedulable nodes ordered by GPU room (GpuRoom), then id: binpack walks
  // it upwards from the first node with enough, spread downwards from the
  // emptiest. Keyed by room, not free GPU, so an over-full device neither
  // hides its node from a pod that needs no GPU nor the node's idle devices
  // from one that does.
  using FreeGpuIndex = RoomIndex;  // (room, node)
  const FreeGpuIndex& ByFreeGpu() const {
    CatchUpIndexes();
    return by_free_gpu_;
  }
  // Devices shared by fractions with room left, by free portion then id:
  // binpack looks here first so a fraction fills a started device before
  // it opens a new one.
  using SharedDeviceIndex = RoomIndex;  // (free portion, device)
  const SharedDeviceIndex& SharedDevices() const {
    CatchUpIndexes();
    return shared_devices_;
  }

  // Sum of free GPU over schedulable nodes.
  Milli FreeGpuTotal() const { return free_gpu_total_; }

  // What a pod costs its queue when placed as `allocation`. Inline: the
  // victim searches ask it for every pod they weigh. A pod placed at some
  // point of the cycle keeps its request's CPU and memory in its slot, so
  // only pods never placed, MIG pods and pods with GPU claims read the
  // (large) Pod record.
  ResourceVector Usage(PodId pod, const Allocation& allocation) const {
    const PodSlot& slot = pods_[pod];
    if ((slot.flags & (kRequestKept | kMig | kClaimGpus)) == kRequestKept)
      return MakeResources(CountDevices(allocation.device_mask) * allocation.portion,
                           slot.cpu_milli, slot.memory_bytes);
    const PodRequest& r = snapshot_->pods[pod].request;
    const Milli gpu = r.claim_gpus * kMilliPerGpu +
                      (r.mig_count > 0 ? r.mig_count * r.mig_milli_each
                                       : CountDevices(allocation.device_mask) * allocation.portion);
    return MakeResources(gpu, r.cpu_milli, r.memory_bytes);
  }

  // Totals of schedulable nodes: the capacity fair share divides.
  const ResourceVector& Capacity() const { return capacity_; }

  // Every node a Place or Remove touched, in order: lets a placement rule
  // that keeps its own index of nodes catch up with what changed.
  const std::vector<NodeId>& ChangeLog() const { return change_log_; }

 private:
  // What the state keeps of each pod, in one record, so that AllocationOf,
  // Usage and the node changes of Remove and of trials read one record, not
  // a line in the allocations and another in the (large) Pod record. The
  // allocation's fields are kept apart (not as an Allocation) to fit 40
  // bytes. Whether a pod is placed stays in its own byte array: walks that
  // ask only that (gangs' counts, pending pods) then read 146 KB, not the
  // slots' 5.8 MB, on the busy benchmark.
  static constexpr uint8_t kRequestKept = 1;  // cpu_milli, memory_bytes and the kinds are set
  static constexpr uint8_t kWhole = 2;        // the request holds whole GPUs
  static constexpr uint8_t kMig = 4;          // the request asks MIG slices
  static constexpr uint8_t kExtras = 8;       // it asks other resources or host ports
  static constexpr uint8_t kClaimGpus = 16;   // its resource claims charge GPUs
  struct PodSlot {
    uint64_t device_mask = 0;
    Milli portion = 0;
    int64_t cpu_milli = 0;
    int64_t memory_bytes = 0;
    NodeId node = kNone;
    uint8_t flags = 0;
  };
  static_assert(sizeof(PodSlot) == 40);

  // Clearing the lowest bit until none is left: a pod holds few devices,
  // and std::popcount is a library call on the baseline x86-64 target.
  static int CountDevices(uint64_t mask) {
    int devices = 0;
    for (; mask != 0; mask &= mask - 1) ++devices;
    return devices;
  }
  // Copies what Usage and ApplyToNode read of the pod's request into its slot.
  void KeepRequest(PodId pod);

  void Apply(PodId pod, const Allocation& allocation, int sign);
  // The part of Apply that the node questions answer from; with kUsage,
  // returns Usage(pod, allocation), worked out on the way (else zero).
  template <bool kUsage>
  ResourceVector ApplyToNode(PodId pod, const Allocation& allocation, int sign);
  // Notes that a schedulable node's entries in the indexes may be stale:
  // its own, and those of the devices in `device_mask`.
  void MarkStale(NodeId node, uint64_t device_mask);
  // Re-keys the index entries of every node and device marked stale to what
  // they hold now; the indexes then say what eager upkeep on every Place
  // and Remove would have made them say.
  void CatchUpIndexes() const;
  bool InSharedIndex(DeviceId d) const;

  const Snapshot* snapshot_;
  std::vector<NodeFree> node_free_;
  std::vector<NodeBrief> node_brief_;
  std::vector<Milli> gpu_room_;
  std::vector<Milli> device_used_;
  std::vector<uint8_t> device_whole_;
  std::vector<uint32_t> mig_offset_;
  std::vector<int32_t> mig_free_;
  std::vector<ResourceVector> queue_allocated_;
  std::vector<ResourceVector> queue_nonpreemptible_;
  std::vector<int32_t> group_placed_;
  std::vector<uint32_t> subgroup_offset_;
  std::vector<int32_t> subgroup_placed_;
  std::vector<uint8_t> placed_;
  std::vector<PodSlot> pods_;
  // The indexes and what each holds for a node or device (its key there;
  // kNotIndexed for a device not in SharedDevices), as of the last catch-up.
  // Mutable: catching up changes no answer, only when the work is done.
  static constexpr Milli kNotIndexed = -1;
  mutable FreeGpuIndex by_free_gpu_;
  mutable SharedDeviceIndex shared_devices_;
  mutable std::vector<Milli> indexed_room_;
  mutable std::vector<Milli> indexed_device_free_;
  mutable std::vector<uint8_t> stale_;  // per node, then per device after them
  mutable std::vector<NodeId> stale_nodes_;
  mutable std::vector<DeviceId> stale_devices_;
  ResourceVector capacity_;
  ResourceVector total_allocated_;
  Milli free_gpu_total_ = 0;
  std::vector<NodeId> change_log_;
  PodTermCounts terms_;
  NodeExtras extras_;
};

}  // namespace vtenant::sched

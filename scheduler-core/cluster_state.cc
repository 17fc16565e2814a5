#include "scheduler-core/cluster_state.h"

#include <algorithm>
#include <bit>

#include "scheduler-core/subgroup_tree.h"

namespace vtenant::sched {

ClusterState::ClusterState(const Snapshot& s)
    : snapshot_(&s),
      node_free_(s.nodes.size()),
      node_brief_(s.nodes.size()),
      gpu_room_(s.nodes.size()),
      device_used_(s.devices.size(), 0),
      device_whole_(s.devices.size(), 0),
      mig_offset_(s.nodes.size() + 1, 0),
      queue_allocated_(s.queues.size()),
      queue_nonpreemptible_(s.queues.size()),
      group_placed_(s.groups.size(), 0),
      subgroup_offset_(s.groups.size() + 1, 0),
      placed_(s.pods.size(), 0),
      indexed_room_(s.nodes.size(), 0),
      indexed_device_free_(s.devices.size(), kNotIndexed),
      stale_(s.nodes.size() + s.devices.size(), 0),
      terms_(s),
      extras_(s) {
  for (NodeId n = 0; n < s.nodes.size(); ++n) {
    const Node& node = s.nodes[n];
    node_free_[n] = {node.cpu_milli, node.memory_bytes, node.max_pods,
                     node.num_devices * kMilliPerGpu};
    gpu_room_[n] = node.num_devices * kMilliPerGpu;
    node_brief_[n] = {node.first_device, node.num_devices,
                      node.num_devices > 0 ? s.devices[node.first_device].memory_mib : 0,
                      node.schedulable, !node.taints.empty()};
    mig_offset_[n + 1] = mig_offset_[n] + static_cast<uint32_t>(node.mig.size());
    if (!node.schedulable) continue;
    capacity_[kCpu] += node.cpu_milli;
    capacity_[kMemory] += node.memory_bytes;
    if (!node.gpus_in_capacity) continue;
    capacity_[kGpu] += (node.num_devices + node.claim_gpus) * kMilliPerGpu;
    for (const MigSlot& m : node.mig) capacity_[kGpu] += m.capacity * m.gpu_milli_each;
  }
  mig_free_.resize(mig_offset_.back());
  for (NodeId n = 0; n < s.nodes.size(); ++n)
    for (size_t i = 0; i < s.nodes[n].mig.size(); ++i)
      mig_free_[mig_offset_[n] + i] = s.nodes[n].mig[i].capacity;
  for (GroupId g = 0; g < s.groups.size(); ++g)
    subgroup_offset_[g + 1] =
        subgroup_offset_[g] + static_cast<uint32_t>(s.groups[g].subgroups.size());
  subgroup_placed_.assign(subgroup_offset_.back(), 0);
  // Running pods as Apply would place them, except that each pod's usage
  // goes to its own queue only; the subtree totals are summed up the tree
  // afterwards, once per queue instead of once per pod and ancestor. Each
  // slot is written once, in order (reserved, not zeroed first); a pending
  // pod's is left empty, so this pass reads only the phase of its record.
  pods_.reserve(s.pods.size());
  for (PodId p = 0; p < s.pods.size(); ++p) {
    const Pod& pod = s.pods[p];
    PodSlot& slot = pods_.emplace_back();
    if (pod.phase != PodPhase::kRunning) continue;
    slot.device_mask = pod.allocation.device_mask;
    slot.portion = pod.allocation.portion;
    slot.node = pod.allocation.node;
    placed_[p] = 1;
    KeepRequest(p);
    const ResourceVector usage = ApplyToNode<true>(p, pod.allocation, +1);
    const PodGroup& g = s.groups[pod.group];
    total_allocated_ += usage;
    if (g.queue != kNone) {
      queue_allocated_[g.queue] += usage;
      if (!g.preemptible) queue_nonpreemptible_[g.queue] += usage;
    }
    ++group_placed_[pod.group];
    if (pod.subgroup >= 0) ++subgroup_placed_[subgroup_offset_[pod.group] + pod.subgroup];
    terms_.Count(p, pod.allocation.node, +1);
  }
  const std::vector<ResourceVector> own = queue_allocated_;
  const std::vector<ResourceVector> own_nonpreemptible = queue_nonpreemptible_;
  for (QueueId q = 0; q < s.queues.size(); ++q)
    for (QueueId up = s.queues[q].parent; up != kNone; up = s.queues[up].parent) {
      queue_allocated_[up] += own[q];
      queue_nonpreemptible_[up] += own_nonpreemptible[q];
    }
  // A node's room never passes all its devices free, nor a shared
  // device's free portion a whole GPU.
  Milli most_room = 0;
  for (const Node& node : s.nodes)
    if (node.schedulable) most_room = std::max<Milli>(most_room, node.num_devices * kMilliPerGpu);
  by_free_gpu_ = RoomIndex(most_room, s.nodes.size());
  shared_devices_ = RoomIndex(kMilliPerGpu, s.devices.size());
  for (NodeId n = 0; n < s.nodes.size(); ++n)
    if (node_brief_[n].schedulable) {
      by_free_gpu_.Insert(gpu_room_[n], n);
      indexed_room_[n] = gpu_room_[n];
      free_gpu_total_ += node_free_[n].gpu;
    }
  for (DeviceId d = 0; d < s.devices.size(); ++d)
    if (InSharedIndex(d)) {
      indexed_device_free_[d] = kMilliPerGpu - device_used_[d];
      shared_devices_.Insert(indexed_device_free_[d], d);
    }
}

void ClusterState::Place(PodId pod, const Allocation& allocation) {
  const NodeId n = allocation.node;
  const Milli old_free = node_free_[n].gpu;
  Apply(pod, allocation, +1);
  if (node_brief_[n].schedulable) {
    free_gpu_total_ += node_free_[n].gpu - old_free;
    MarkStale(n, allocation.device_mask);
  }
  change_log_.push_back(n);
}

void ClusterState::Remove(PodId pod) {
  const Allocation allocation = AllocationOf(pod);
  const NodeId n = allocation.node;
  const Milli old_free = node_free_[n].gpu;
  Apply(pod, allocation, -1);
  if (node_brief_[n].schedulable) {
    free_gpu_total_ += node_free_[n].gpu - old_free;
    MarkStale(n, allocation.device_mask);
  }
  change_log_.push_back(n);
}

bool ClusterState::GangSatisfied(GroupId g) const {
  const PodGroup& group = snapshot_->groups[g];
  if (group_placed_[g] < group.min_member) return false;
  return group.subgroups.empty() || SubGroupTree::Of(group).Satisfied(SubGroupsPlaced(g));
}

void ClusterState::LiftForTrial(PodId pod) { ApplyToNode<false>(pod, AllocationOf(pod), -1); }

void ClusterState::PutBackAfterTrial(PodId pod) { ApplyToNode<false>(pod, AllocationOf(pod), +1); }

void ClusterState::KeepRequest(PodId pod) {
  PodSlot& slot = pods_[pod];
  if (slot.flags & kRequestKept) return;
  const PodRequest& r = snapshot_->pods[pod].request;
  slot.cpu_milli = r.cpu_milli;
  slot.memory_bytes = r.memory_bytes;
  slot.flags = kRequestKept | (r.whole_gpus > 0 ? kWhole : 0) | (r.mig_count > 0 ? kMig : 0) |
               (extras_.Concerns(pod) ? kExtras : 0) | (r.claim_gpus > 0 ? kClaimGpus : 0);
}

void ClusterState::Apply(PodId pod, const Allocation& a, int sign) {
  KeepRequest(pod);
  const ResourceVector usage = ApplyToNode<true>(pod, a, sign);
  const Snapshot& s = *snapshot_;
  const Pod& p = s.pods[pod];
  const PodGroup& g = s.groups[p.group];
  if (sign > 0) {
    total_allocated_ += usage;
    for (QueueId q = g.queue; q != kNone; q = s.queues[q].parent) {
      queue_allocated_[q] += usage;
      if (!g.preemptible) queue_nonpreemptible_[q] += usage;
    }
    PodSlot& slot = pods_[pod];
    slot.device_mask = a.device_mask;
    slot.portion = a.portion;
    slot.node = a.node;
  } else {
    total_allocated_ -= usage;
    for (QueueId q = g.queue; q != kNone; q = s.queues[q].parent) {
      queue_allocated_[q] -= usage;
      if (!g.preemptible) queue_nonpreemptible_[q] -= usage;
    }
  }
  group_placed_[p.group] += sign;
  if (p.subgroup >= 0) subgroup_placed_[subgroup_offset_[p.group] + p.subgroup] += sign;
  placed_[pod] = sign > 0;
  terms_.Count(pod, a.node, sign);
}

template <bool kUsage>
ResourceVector ClusterState::ApplyToNode(PodId pod, const Allocation& a, int sign) {
  // The slot has the request's CPU, memory and kind (KeepRequest ran when
  // the pod was first placed); only a MIG pod's slices need the Pod record.
  const PodSlot& slot = pods_[pod];
  const NodeBrief& node = node_brief_[a.node];
  NodeFree& free = node_free_[a.node];
  free.cpu_milli -= sign * slot.cpu_milli;
  free.memory_bytes -= sign * slot.memory_bytes;
  free.pods -= sign;
  const Milli change = sign * a.portion;
  const bool whole = (slot.flags & kWhole) != 0;
  // A shared device in use has a reservation pod on the node, which takes
  // a pod slot from its first sharer to its last.
  const bool shares = !whole && (slot.flags & kMig) == 0;
  Milli room = gpu_room_[a.node];
  int devices = 0;
  for (uint64_t mask = a.device_mask; mask != 0; mask &= mask - 1) {
    DeviceId d = node.first_device + std::countr_zero(mask);
    const Milli old_free = kMilliPerGpu - device_used_[d];
    const bool was_used = device_used_[d] > 0;
    device_used_[d] += change;
    if (shares && was_used != (device_used_[d] > 0)) free.pods -= was_used ? -1 : 1;
    // Telescopes per device, so any order of changes ends at the same room.
    room += std::max<Milli>(old_free - change, 0) - std::max<Milli>(old_free, 0);
    if (whole) device_whole_[d] = sign > 0;
    ++devices;
  }
  gpu_room_[a.node] = room;
  free.gpu -= devices * change;
  Milli gpu = devices * a.portion;
  if (slot.flags & kMig) {
    const PodRequest& r = snapshot_->pods[pod].request;
    const std::vector<MigSlot>& mig = snapshot_->nodes[a.node].mig;
    for (size_t i = 0; i < mig.size(); ++i)
      if (mig[i].profile == r.mig_profile) mig_free_[mig_offset_[a.node] + i] -= sign * r.mig_count;
    gpu = r.mig_count * r.mig_milli_each;
  }
  if (slot.flags & kExtras) extras_.Apply(pod, a.node, sign);
  if constexpr (!kUsage) return {};
  if (slot.flags & kClaimGpus) gpu += snapshot_->pods[pod].request.claim_gpus * kMilliPerGpu;
  // Usage(pod, a), from the devices just counted.
  return MakeResources(gpu, slot.cpu_milli, slot.memory_bytes);
}

bool ClusterState::InSharedIndex(DeviceId d) const {
  return device_used_[d] > 0 && device_used_[d] < kMilliPerGpu && !device_whole_[d] &&
         node_brief_[snapshot_->devices[d].node].schedulable;
}

void ClusterState::MarkStale(NodeId n, uint64_t device_mask) {
  if (!stale_[n]) {
    stale_[n] = 1;
    stale_nodes_.push_back(n);
  }
  const size_t devices_at = snapshot_->nodes.size();
  for (uint64_t mask = device_mask; mask != 0; mask &= mask - 1) {
    const DeviceId d = node_brief_[n].first_device + std::countr_zero(mask);
    if (stale_[devices_at + d]) continue;
    stale_[devices_at + d] = 1;
    stale_devices_.push_back(d);
  }
}

void ClusterState::CatchUpIndexes() const {
  for (NodeId n : stale_nodes_) {
    stale_[n] = 0;
    if (gpu_room_[n] == indexed_room_[n]) continue;
    by_free_gpu_.Move(indexed_room_[n], gpu_room_[n], n);
    indexed_room_[n] = gpu_room_[n];
  }
  stale_nodes_.clear();
  const size_t devices_at = snapshot_->nodes.size();
  for (DeviceId d : stale_devices_) {
    stale_[devices_at + d] = 0;
    const Milli was = indexed_device_free_[d];
    const Milli now = InSharedIndex(d) ? kMilliPerGpu - device_used_[d] : kNotIndexed;
    if (now == was) continue;
    indexed_device_free_[d] = now;
    if (was != kNotIndexed && now != kNotIndexed) {
      shared_devices_.Move(was, now, d);
    } else if (was != kNotIndexed) {
      shared_devices_.Erase(was, d);
    } else {
      shared_devices_.Insert(now, d);
    }
  }
  stale_devices_.clear();
}

}  // namespace vtenant::sched

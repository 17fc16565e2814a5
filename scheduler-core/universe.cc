#include "scheduler-core/universe.h"

#include <algorithm>
#include <utility>

namespace vtenant::sched {
namespace {

template <typename T>
void Grow(std::vector<T>& v, size_t id, T fill) {
  if (v.size() <= id) v.resize(id + 1, fill);
}

// Sorted as Finalize sorts them, so shapes and label matching agree.
void SortLabels(Pod& pod) {
  std::sort(pod.node_selector.begin(), pod.node_selector.end());
  for (LabelIn& in : pod.node_affinity) std::sort(in.values.begin(), in.values.end());
}

}  // namespace

Universe::Universe() : Universe(Snapshot{}) {}

Result<Universe> Universe::Create(const SnapshotBuilder& builder) {
  VT_ASSIGN_OR_RETURN(Snapshot s, builder.Build());
  for (Pod& p : s.pods) {
    p.phase = PodPhase::kPending;
    p.allocation = {};
    p.start_time = 0;
  }
  return Universe(std::move(s));
}

Universe::Universe(Snapshot universe) : universe_(std::move(universe)) {
  const Snapshot& u = universe_;
  for (NodeId n = 0; n < u.nodes.size(); ++n) node_index_.emplace(u.nodes[n].name, n);
  queue_refs_.assign(u.queues.size(), 0);
  for (QueueId q = 0; q < u.queues.size(); ++q) {
    queue_index_.emplace(u.queues[q].name, q);
    if (u.queues[q].parent != kNone) ++queue_refs_[u.queues[q].parent];
  }
  group_refs_.assign(u.groups.size(), 0);
  for (GroupId g = 0; g < u.groups.size(); ++g) {
    group_index_.emplace(u.groups[g].name, g);
    ++queue_refs_[u.groups[g].queue];
  }
  own_group_.assign(u.pods.size(), kNone);
  for (PodId p = 0; p < u.pods.size(); ++p) {
    pod_index_.emplace(u.pods[p].name, p);
    ++group_refs_[u.pods[p].group];
    // Build() numbered the shapes; keep its numbers.
    Shape& shape = shapes_[ShapeKey(u.pods[p])];
    shape.id = u.pods[p].shape;
    ++shape.pods;
  }
  slot_.assign(u.pods.size(), nullptr);
}

uint32_t Universe::NextId(std::set<uint32_t>& free, size_t size) {
  if (free.empty()) return static_cast<uint32_t>(size);
  uint32_t id = *free.begin();
  free.erase(free.begin());
  return id;
}

ShapeId Universe::AcquireShape(const Pod& pod) {
  Shape& shape = shapes_[ShapeKey(pod)];
  if (shape.pods++ == 0) {
    shape.id = NextId(free_shapes_, static_cast<size_t>(universe_.num_shapes));
    universe_.num_shapes = std::max<int32_t>(universe_.num_shapes, shape.id + 1);
  }
  return shape.id;
}

void Universe::ReleaseShape(const Pod& pod) {
  auto it = shapes_.find(ShapeKey(pod));
  if (it == shapes_.end() || --it->second.pods > 0) return;
  free_shapes_.insert(it->second.id);
  shapes_.erase(it);
}

Result<NodeId> Universe::SetNode(const NodeSpec& spec) {
  if (spec.name.empty()) return InvalidArgument("node without a name");
  auto it = node_index_.find(spec.name);
  const bool fresh = it == node_index_.end();
  const NodeId id = fresh ? (free_nodes_.empty() ? static_cast<NodeId>(universe_.nodes.size())
                                                 : *free_nodes_.begin())
                          : it->second;
  std::vector<GpuDevice> devices;
  VT_ASSIGN_OR_RETURN(Node node, MakeNode(spec, id, universe_.strings, devices));
  std::sort(node.labels.begin(), node.labels.end());
  if (fresh) {
    NextId(free_nodes_, universe_.nodes.size());
    if (id == universe_.nodes.size()) universe_.nodes.emplace_back();
    node_index_.emplace(spec.name, id);
  }
  Node& slot = universe_.nodes[id];
  // Same number of GPUs: the node keeps its devices; otherwise it gets a
  // new range (the old one is unused from now on).
  if (!fresh && slot.num_devices == node.num_devices) {
    node.first_device = slot.first_device;
  } else {
    node.first_device = static_cast<DeviceId>(universe_.devices.size());
    universe_.devices.resize(universe_.devices.size() + devices.size());
  }
  std::copy(devices.begin(), devices.end(), universe_.devices.begin() + node.first_device);
  slot = std::move(node);
  laid_out_ = false;
  return id;
}

// Each Remove* frees its slot alike (reset it, add it to the free list,
// drop the name from the index); what it must check and release first is
// its kind's own, so the steps stay written out in each.
Status Universe::RemoveNode(std::string_view name) {
  auto it = node_index_.find(name);
  if (it == node_index_.end()) return NotFound("node " + std::string(name) + " is not known");
  universe_.nodes[it->second] = Node{};
  free_nodes_.insert(it->second);
  node_index_.erase(it);
  laid_out_ = false;
  return Status::Ok();
}

Result<QueueId> Universe::SetQueue(const QueueSpec& spec) {
  if (spec.name.empty()) return InvalidArgument("queue without a name");
  auto it = queue_index_.find(spec.name);
  const bool fresh = it == queue_index_.end();
  QueueId parent = kNone;
  if (!spec.parent.empty()) {
    auto p = queue_index_.find(spec.parent);
    if (p == queue_index_.end())
      return InvalidArgument("queue " + spec.name + ": parentQueue " + spec.parent +
                             " does not exist");
    parent = p->second;
    if (!fresh)
      for (QueueId walk = parent; walk != kNone; walk = universe_.queues[walk].parent)
        if (walk == it->second)
          return InvalidArgument("queue " + spec.name + ": parentQueue chain forms a cycle");
  }
  QueueId id = fresh ? NextId(free_queues_, universe_.queues.size()) : it->second;
  if (fresh) {
    Grow(universe_.queues, id, Queue{});
    Grow(queue_refs_, id, 0u);
    queue_index_.emplace(spec.name, id);
  } else if (universe_.queues[id].parent != kNone) {
    --queue_refs_[universe_.queues[id].parent];
  }
  if (parent != kNone) ++queue_refs_[parent];
  Queue q = MakeQueue(spec);
  q.parent = parent;
  universe_.queues[id] = std::move(q);
  laid_out_ = false;
  return id;
}

Status Universe::RemoveQueue(std::string_view name) {
  auto it = queue_index_.find(name);
  if (it == queue_index_.end()) return NotFound("queue " + std::string(name) + " is not known");
  const QueueId id = it->second;
  if (queue_refs_[id] > 0)
    return FailedPrecondition("queue " + std::string(name) +
                              " still has child queues or pod groups");
  if (universe_.queues[id].parent != kNone) --queue_refs_[universe_.queues[id].parent];
  universe_.queues[id] = Queue{};
  free_queues_.insert(id);
  queue_index_.erase(it);
  laid_out_ = false;
  return Status::Ok();
}

Result<GroupId> Universe::SetGroup(const GroupSpec& spec) {
  if (spec.name.empty()) return InvalidArgument("podgroup without a name");
  auto q = queue_index_.find(spec.queue);
  if (q == queue_index_.end())
    return InvalidArgument("podgroup " + spec.name + ": queue \"" + spec.queue +
                           "\" does not exist");
  auto it = group_index_.find(spec.name);
  const bool fresh = it == group_index_.end();
  const GroupId id = fresh ? NextId(free_groups_, universe_.groups.size()) : it->second;
  if (fresh) {
    Grow(universe_.groups, id, PodGroup{});
    Grow(group_refs_, id, 0u);
    group_index_.emplace(spec.name, id);
  } else {
    --queue_refs_[universe_.groups[id].queue];
  }
  ++queue_refs_[q->second];
  PodGroup g = MakeGroup(spec, universe_.strings);
  g.queue = q->second;
  universe_.groups[id] = std::move(g);
  return id;
}

void Universe::DropGroup(GroupId g) {
  --queue_refs_[universe_.groups[g].queue];
  universe_.groups[g] = PodGroup{};
  free_groups_.insert(g);
}

Status Universe::RemoveGroup(std::string_view name) {
  auto it = group_index_.find(name);
  if (it == group_index_.end()) return NotFound("podgroup " + std::string(name) + " is not known");
  if (group_refs_[it->second] > 0)
    return FailedPrecondition("podgroup " + std::string(name) + " still has pods");
  DropGroup(it->second);
  group_index_.erase(it);
  return Status::Ok();
}

Result<PodId> Universe::SetPod(const PodSpec& spec) {
  if (spec.name.empty()) return InvalidArgument("pod without a name");
  auto bad = [&](std::string what) { return InvalidArgument("pod " + spec.name + ": " + what); };
  auto it = pod_index_.find(spec.name);
  const bool fresh = it == pod_index_.end();
  const PodId existing = fresh ? kNone : it->second;
  const GroupId old_own = fresh ? kNone : own_group_[existing];

  // Everything is checked before anything changes.
  GroupId group = kNone;
  PodGroup own;
  QueueId own_queue = kNone;
  if (spec.group.empty()) {
    auto q = queue_index_.find(spec.queue);
    if (q == queue_index_.end())
      return bad("podgroup " + spec.name + ": queue \"" + spec.queue + "\" does not exist");
    own = MakeGroup(OwnGroupSpec(spec), universe_.strings);
    own_queue = q->second;
    own.queue = own_queue;
  } else {
    auto g = group_index_.find(spec.group);
    if (g == group_index_.end()) return bad("pod group " + spec.group + " does not exist");
    group = g->second;
  }
  VT_ASSIGN_OR_RETURN(
      Pod pod, MakePod(spec, group == kNone ? own : universe_.groups[group], universe_.strings));
  VT_RETURN_IF_ERROR(CheckPodRequest(pod));
  SortLabels(pod);

  const PodId id = fresh ? NextId(free_pods_, universe_.pods.size()) : existing;
  if (fresh) {
    Grow(universe_.pods, id, Pod{});
    Grow(own_group_, id, kNone);
    Grow(slot_, id, static_cast<const PresentPod*>(nullptr));
    pod_index_.emplace(spec.name, id);
  }
  if (group == kNone) {
    // Its own group: the one it had, or a new one.
    group = old_own != kNone ? old_own : NextId(free_groups_, universe_.groups.size());
    Grow(universe_.groups, group, PodGroup{});
    Grow(group_refs_, group, 0u);
    if (old_own != kNone) --queue_refs_[universe_.groups[old_own].queue];
    ++queue_refs_[own_queue];
    universe_.groups[group] = std::move(own);
    own_group_[id] = group;
  } else {
    own_group_[id] = kNone;
  }
  pod.group = group;
  pod.shape = AcquireShape(pod);
  if (!fresh) {
    const Pod& old = universe_.pods[id];
    ReleaseShape(old);
    --group_refs_[old.group];
    if (old_own != kNone && old_own != group) DropGroup(old_own);
  }
  ++group_refs_[group];
  universe_.pods[id] = std::move(pod);
  return id;
}

Status Universe::RemovePod(std::string_view name) {
  auto it = pod_index_.find(name);
  if (it == pod_index_.end()) return NotFound("pod " + std::string(name) + " is not known");
  const PodId id = it->second;
  const Pod& pod = universe_.pods[id];
  ReleaseShape(pod);
  --group_refs_[pod.group];
  if (own_group_[id] != kNone) DropGroup(own_group_[id]);
  own_group_[id] = kNone;
  universe_.pods[id] = Pod{};
  free_pods_.insert(id);
  pod_index_.erase(it);
  return Status::Ok();
}

NodeId Universe::FindNode(std::string_view name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? kNone : it->second;
}

PodId Universe::FindPod(std::string_view name) const {
  auto it = pod_index_.find(name);
  return it == pod_index_.end() ? kNone : it->second;
}

void Universe::LayOut() {
  working_node_.assign(universe_.nodes.size(), kNone);
  work_.nodes.clear();
  work_.devices.clear();
  for (NodeId u = 0; u < universe_.nodes.size(); ++u) {
    const Node& node = universe_.nodes[u];
    if (node.name.empty()) continue;  // tombstone
    const NodeId w = static_cast<NodeId>(work_.nodes.size());
    working_node_[u] = w;
    work_.nodes.push_back(node);
    work_.nodes.back().first_device = static_cast<DeviceId>(work_.devices.size());
    for (int i = 0; i < node.num_devices; ++i) {
      GpuDevice d = universe_.devices[node.first_device + i];
      d.node = w;
      work_.devices.push_back(d);
    }
  }
  working_queue_.assign(universe_.queues.size(), kNone);
  work_.queues.clear();
  for (QueueId u = 0; u < universe_.queues.size(); ++u) {
    if (universe_.queues[u].name.empty()) continue;
    working_queue_[u] = static_cast<QueueId>(work_.queues.size());
    work_.queues.push_back(universe_.queues[u]);
  }
  for (Queue& q : work_.queues)
    if (q.parent != kNone) q.parent = working_queue_[q.parent];
  laid_out_ = true;
}

const Snapshot& Universe::Working(int64_t now, const std::vector<PresentPod>& present) {
  if (!laid_out_) LayOut();
  // Strings are only ever added, so a copy of the same size is current.
  if (work_.strings.size() != universe_.strings.size()) work_.strings = universe_.strings;
  work_.num_shapes = universe_.num_shapes;
  work_.now = now;
  // Walk in universe order so the working snapshot does not depend on the
  // order the caller listed the pods in: same pods, same decisions.
  for (const PresentPod& p : present) slot_[p.pod] = &p;
  working_group_.assign(universe_.groups.size(), kNone);
  universe_pod_.clear();
  size_t pods_used = 0, groups_used = 0;
  for (PodId u = 0; u < universe_.pods.size(); ++u) {
    const PresentPod* present_pod = slot_[u];
    if (present_pod == nullptr) continue;
    slot_[u] = nullptr;
    // Copy-assigning into the previous cycle's objects reuses their memory.
    if (pods_used == work_.pods.size()) work_.pods.emplace_back();
    Pod& pod = work_.pods[pods_used++];
    pod = universe_.pods[u];
    const GroupId ug = pod.group;
    if (working_group_[ug] == kNone) {
      working_group_[ug] = static_cast<GroupId>(groups_used);
      if (groups_used == work_.groups.size()) work_.groups.emplace_back();
      PodGroup& group = work_.groups[groups_used++];
      group = universe_.groups[ug];
      group.queue = working_queue_[group.queue];
    }
    pod.group = working_group_[ug];
    if (present_pod->running) {
      pod.phase = PodPhase::kRunning;
      pod.allocation = present_pod->allocation;
      const NodeId n = pod.allocation.node;
      pod.allocation.node = n < working_node_.size() ? working_node_[n] : kNone;
      pod.start_time = present_pod->start_time;
    }
    universe_pod_.push_back(u);
  }
  work_.pods.resize(pods_used);
  work_.groups.resize(groups_used);
  work_.Finalize(/*derive_shapes=*/false);
  return work_;
}

}  // namespace vtenant::sched

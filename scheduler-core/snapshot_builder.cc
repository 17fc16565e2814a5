#include "scheduler-core/snapshot_builder.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace vtenant::sched {
namespace {

using NameIndex = std::map<std::string, uint32_t, std::less<>>;

template <typename Spec>
Result<NameIndex> IndexNames(const std::vector<Spec>& specs, std::string_view kind) {
  NameIndex index;
  for (uint32_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name.empty()) return InvalidArgument(std::string(kind) + " without a name");
    if (!index.emplace(specs[i].name, i).second)
      return InvalidArgument(std::string(kind) + " " + specs[i].name + " is defined twice");
  }
  return index;
}

std::vector<Label> InternLabels(Interner& strings, const LabelPairs& pairs) {
  std::vector<Label> labels;
  labels.reserve(pairs.size());
  for (const auto& [k, v] : pairs) labels.push_back({strings.Intern(k), strings.Intern(v)});
  return labels;
}

// Inter-pod terms as (label key, topology level) pairs.
std::vector<PodTerm> InternTerms(Interner& strings, const LabelPairs& pairs) {
  std::vector<PodTerm> terms;
  terms.reserve(pairs.size());
  for (const auto& [key, level] : pairs)
    terms.push_back({strings.Intern(key), strings.Intern(level)});
  return terms;
}

StringId InternOrNone(Interner& strings, const std::string& s) {
  return s.empty() ? kNoString : strings.Intern(s);
}

// Zero amounts left out; not sorted (interned ids are not in name order).
std::vector<OtherResource> InternOther(Interner& strings,
                                       const std::map<std::string, int64_t>& amounts) {
  std::vector<OtherResource> out;
  for (const auto& [name, milli] : amounts)
    if (milli != 0) out.push_back({strings.Intern(name), milli});
  return out;
}

}  // namespace

Result<Node> MakeNode(const NodeSpec& spec, NodeId id, Interner& strings,
                      std::vector<GpuDevice>& devices) {
  if (spec.gpus < 0 || spec.gpus > kMaxDevicesPerNode)
    return InvalidArgument("node " + spec.name + ": " + std::to_string(spec.gpus) +
                           " GPUs; between 0 and " + std::to_string(kMaxDevicesPerNode) +
                           " are supported");
  if (spec.claim_gpus < 0)
    return InvalidArgument("node " + spec.name + ": its resource slices' GPUs are negative");
  Node node;
  node.name = spec.name;
  node.cpu_milli = spec.cpu_milli;
  node.memory_bytes = spec.memory_bytes;
  node.max_pods = spec.max_pods;
  node.schedulable = spec.schedulable;
  node.gpus_in_capacity = spec.gpus_in_capacity;
  node.first_device = static_cast<DeviceId>(devices.size());
  node.num_devices = spec.gpus;
  node.claim_gpus = spec.claim_gpus;
  StringId model = InternOrNone(strings, spec.gpu_model);
  for (int i = 0; i < spec.gpus; ++i) devices.push_back({id, spec.gpu_memory_mib, model});
  node.labels = InternLabels(strings, spec.labels);
  for (const TaintSpec& t : spec.taints)
    node.taints.push_back({strings.Intern(t.key), strings.Intern(t.value), t.effect});
  for (const auto& [profile, count] : spec.mig) {
    Result<Milli> each = MigProfileGpuMilli(profile);
    if (!each.ok()) return each.status().WithContext("node " + spec.name);
    node.mig.push_back({strings.Intern(profile), count, *each});
  }
  node.other_resources = InternOther(strings, spec.other_resources);
  SortOtherResources(node.other_resources);
  return node;
}

// MakeNode, MakeQueue, MakeGroup and MakePod copy a spec into its model type
// field by field, as does OwnGroupSpec for a pod's own group: alike in form
// only, each pair of types has its own fields, defaults and interning.
GroupSpec OwnGroupSpec(const PodSpec& pod) {
  GroupSpec own;
  own.name = pod.name;
  own.queue = pod.queue;
  own.priority = pod.priority;
  own.preemptible = pod.preemptible;
  own.creation_time = pod.creation_time;
  return own;
}

Queue MakeQueue(const QueueSpec& spec) {
  Queue q;
  q.name = spec.name;
  q.resources = spec.resources;
  q.priority = spec.priority;
  q.preempt_min_runtime_s = spec.preempt_min_runtime_s;
  q.reclaim_min_runtime_s = spec.reclaim_min_runtime_s;
  q.creation_time = spec.creation_time;
  q.usage_ppm = spec.usage_ppm;
  return q;
}

PodGroup MakeGroup(const GroupSpec& spec, Interner& strings) {
  PodGroup g;
  g.name = spec.name;
  g.min_member = spec.min_member;
  g.priority = spec.priority;
  g.preemptible = spec.preemptible.value_or(PreemptibleByDefault(spec.priority));
  g.creation_time = spec.creation_time;
  g.subgroups = spec.subgroups;
  g.subgroup_sets = spec.subgroup_sets;
  g.min_sub_group = spec.min_sub_group;
  g.topology.required_level = InternOrNone(strings, spec.required_topology);
  g.topology.preferred_level = InternOrNone(strings, spec.preferred_topology);
  const auto levels_of = [&](const std::string& name) {
    TopologyConstraint c;
    if (auto it = spec.subgroup_topology.find(name); it != spec.subgroup_topology.end()) {
      c.required_level = InternOrNone(strings, it->second.required);
      c.preferred_level = InternOrNone(strings, it->second.preferred);
    }
    return c;
  };
  for (SubGroup& leaf : g.subgroups) leaf.topology = levels_of(leaf.name);
  for (SubGroupSet& set : g.subgroup_sets) set.topology = levels_of(set.name);
  g.stale_since = spec.stale_since;
  g.stale_grace_s = spec.stale_grace_s;
  g.preemption_delay_s = spec.preemption_delay_s;
  g.last_eviction_time = spec.last_eviction_time;
  g.last_start_time = spec.last_start_time;
  return g;
}

Result<Pod> MakePod(const PodSpec& spec, const PodGroup& group, Interner& strings) {
  auto bad = [&](std::string what) { return InvalidArgument("pod " + spec.name + ": " + what); };
  Pod pod;
  pod.name = spec.name;
  if (!spec.subgroup.empty()) {
    const auto& subs = group.subgroups;
    for (size_t i = 0; i < subs.size(); ++i)
      if (subs[i].name == spec.subgroup) pod.subgroup = static_cast<int32_t>(i);
    if (pod.subgroup < 0) return bad("subgroup " + spec.subgroup + " does not exist");
  }
  PodRequest& r = pod.request;
  r.cpu_milli = spec.cpu_milli;
  r.memory_bytes = spec.memory_bytes;
  r.whole_gpus = spec.whole_gpus;
  r.gpu_fraction = spec.gpu_fraction;
  r.gpu_memory_mib = spec.gpu_memory_mib;
  r.num_devices = spec.num_devices;
  r.mig_count = spec.mig_count;
  r.claim_gpus = spec.claim_gpus;
  if (!spec.mig_profile.empty()) {
    r.mig_profile = strings.Intern(spec.mig_profile);
    Result<Milli> each = MigProfileGpuMilli(spec.mig_profile);
    if (!each.ok()) return bad(each.status().message());
    r.mig_milli_each = *each;
  } else if (spec.mig_count > 0) {
    return bad("MIG count without a profile");
  }
  pod.node_selector = InternLabels(strings, spec.node_selector);
  for (const auto& [key, values] : spec.node_affinity_in) {
    LabelIn in{strings.Intern(key), {}};
    for (const std::string& v : values) in.values.push_back(strings.Intern(v));
    pod.node_affinity.push_back(std::move(in));
  }
  for (const TolerationSpec& t : spec.tolerations)
    pod.tolerations.push_back(
        {InternOrNone(strings, t.key), t.exists, InternOrNone(strings, t.value), t.effect});
  PodExtras x;
  for (const std::string& m : spec.marks) x.marks.push_back(strings.Intern(m));
  x.affinity = InternTerms(strings, spec.affinity);
  x.anti_affinity = InternTerms(strings, spec.anti_affinity);
  x.together = InternTerms(strings, spec.together);
  for (const PodSpec::Preferred& t : spec.preferred)
    x.preferred.push_back({strings.Intern(t.key), strings.Intern(t.level), t.weight});
  for (const PodSpec::Spread& t : spec.spread)
    x.spread.push_back({strings.Intern(t.key), strings.Intern(t.level), t.max_skew, t.min_domains,
                        t.honor_affinity, t.honor_taints});
  x.other_resources = InternOther(strings, spec.other_resources);
  for (const std::string& port : spec.host_ports) x.host_ports.push_back(strings.Intern(port));
  if (!x.empty()) {
    SortExtras(x);
    pod.extras = std::make_shared<PodExtras>(std::move(x));
  }
  pod.creation_time = spec.creation_time;
  return pod;
}

Result<Snapshot> SnapshotBuilder::Build() const {
  Snapshot s;
  s.now = now_;
  VT_ASSIGN_OR_RETURN(NameIndex node_index, IndexNames(nodes_, "node"));
  VT_ASSIGN_OR_RETURN(NameIndex queue_index, IndexNames(queues_, "queue"));

  for (const NodeSpec& spec : nodes_) {
    VT_ASSIGN_OR_RETURN(Node node,
                        MakeNode(spec, static_cast<NodeId>(s.nodes.size()), s.strings, s.devices));
    s.nodes.push_back(std::move(node));
  }

  for (const QueueSpec& spec : queues_) {
    Queue q = MakeQueue(spec);
    if (!spec.parent.empty()) {
      auto it = queue_index.find(spec.parent);
      if (it == queue_index.end())
        return InvalidArgument("queue " + spec.name + ": parentQueue " + spec.parent +
                               " does not exist");
      q.parent = it->second;
    }
    s.queues.push_back(std::move(q));
  }

  NameIndex group_index;
  auto add_group = [&](const GroupSpec& spec) -> Result<GroupId> {
    auto queue = queue_index.find(spec.queue);
    if (queue == queue_index.end())
      return InvalidArgument("podgroup " + spec.name + ": queue \"" + spec.queue +
                             "\" does not exist");
    if (!group_index.emplace(spec.name, static_cast<GroupId>(s.groups.size())).second)
      return InvalidArgument("podgroup " + spec.name + " is defined twice");
    PodGroup g = MakeGroup(spec, s.strings);
    g.queue = queue->second;
    s.groups.push_back(std::move(g));
    return static_cast<GroupId>(s.groups.size() - 1);
  };
  for (const GroupSpec& spec : groups_) {
    Result<GroupId> id = add_group(spec);
    if (!id.ok()) return id.status();
  }

  NameIndex pod_names;
  for (const PodSpec& spec : pods_) {
    auto bad = [&](std::string what) { return InvalidArgument("pod " + spec.name + ": " + what); };
    if (spec.name.empty()) return InvalidArgument("pod without a name");
    if (!pod_names.emplace(spec.name, static_cast<PodId>(s.pods.size())).second)
      return InvalidArgument("pod " + spec.name + " is defined twice");
    GroupId group = kNone;
    if (spec.group.empty()) {
      Result<GroupId> id = add_group(OwnGroupSpec(spec));
      if (!id.ok()) return bad(id.status().message());
      group = *id;
    } else {
      auto it = group_index.find(spec.group);
      if (it == group_index.end()) return bad("pod group " + spec.group + " does not exist");
      group = it->second;
    }
    VT_ASSIGN_OR_RETURN(Pod pod, MakePod(spec, s.groups[group], s.strings));
    pod.group = group;
    const PodRequest& r = pod.request;
    if (!spec.node.empty()) {
      auto it = node_index.find(spec.node);
      if (it == node_index.end()) return bad("runs on unknown node " + spec.node);
      pod.phase = PodPhase::kRunning;
      pod.allocation.node = it->second;
      pod.start_time = spec.start_time;
      const Node& node = s.nodes[it->second];
      for (int d : spec.devices) {
        if (d < 0 || d >= node.num_devices)
          return bad("runs on device " + std::to_string(d) + " that node " + node.name +
                     " does not have");
        pod.allocation.device_mask |= uint64_t{1} << d;
      }
      if (r.whole_gpus > 0) {
        pod.allocation.portion = kMilliPerGpu;
      } else if (r.IsShared()) {
        int32_t mib =
            spec.devices.empty() ? 0 : s.devices[node.first_device + spec.devices[0]].memory_mib;
        pod.allocation.portion = spec.portion > 0 ? spec.portion : PortionOnDevice(r, mib);
      }
    }
    s.pods.push_back(std::move(pod));
  }

  s.Finalize();
  VT_RETURN_IF_ERROR(Validate(s));
  return s;
}

QueueSpec GpuQueue(std::string name, std::string parent, Milli quota, Milli limit, double weight) {
  QueueSpec q;
  q.name = std::move(name);
  q.parent = std::move(parent);
  q.resources[kGpu] = {quota, limit, std::llround(weight * 1000)};
  // Unlimited quota: CPU and memory never decide who is over its share.
  q.resources[kCpu] = {kUnlimited, kUnlimited, 1000};
  q.resources[kMemory] = {kUnlimited, kUnlimited, 1000};
  return q;
}

}  // namespace vtenant::sched

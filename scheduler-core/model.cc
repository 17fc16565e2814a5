#include "scheduler-core/model.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <unordered_map>

#include "scheduler-core/subgroup_tree.h"

namespace vtenant::sched {
namespace {

void AppendBytes(std::string& key, const void* data, size_t n) {
  key.append(static_cast<const char*>(data), n);
}

}  // namespace

// Raw bytes of everything that decides where a pod may go.
bool PodGroup::HasTopology() const {
  if (!topology.empty()) return true;
  for (const SubGroup& leaf : subgroups)
    if (!leaf.topology.empty()) return true;
  for (const SubGroupSet& set : subgroup_sets)
    if (!set.topology.empty()) return true;
  return false;
}

std::string ShapeKey(const Pod& pod) {
  std::string key;
  const PodRequest& r = pod.request;
  // Every field of the request: pods of one shape are priced and placed
  // alike (the session keeps one estimate per shape).
  int64_t fields[] = {r.cpu_milli,      r.memory_bytes, r.whole_gpus,  r.gpu_fraction,
                      r.gpu_memory_mib, r.num_devices,  r.mig_profile, r.mig_count,
                      r.mig_milli_each, r.claim_gpus};
  AppendBytes(key, fields, sizeof(fields));
  for (const Label& l : pod.node_selector) AppendBytes(key, &l, sizeof(l));
  key.push_back('|');
  for (const LabelIn& in : pod.node_affinity) {
    AppendBytes(key, &in.key, sizeof(in.key));
    for (StringId v : in.values) AppendBytes(key, &v, sizeof(v));
    key.push_back(';');
  }
  key.push_back('|');
  for (const Toleration& t : pod.tolerations) {
    int64_t tf[] = {t.key, t.exists, t.value, t.effect ? static_cast<int>(*t.effect) : -1};
    AppendBytes(key, tf, sizeof(tf));
  }
  key.push_back('|');
  const PodExtras& x = ExtrasOf(pod);
  for (StringId m : x.marks) AppendBytes(key, &m, sizeof(m));
  key.push_back('|');
  for (const PodTerm& t : x.affinity) AppendBytes(key, &t, sizeof(t));
  key.push_back('|');
  for (const PodTerm& t : x.anti_affinity) AppendBytes(key, &t, sizeof(t));
  key.push_back('|');
  for (const PreferredTerm& t : x.preferred) AppendBytes(key, &t, sizeof(t));
  key.push_back('|');
  for (const PodTerm& t : x.together) AppendBytes(key, &t, sizeof(t));
  key.push_back('|');
  for (const OtherResource& r : x.other_resources) AppendBytes(key, &r, sizeof(r));
  key.push_back('|');
  for (StringId port : x.host_ports) AppendBytes(key, &port, sizeof(port));
  key.push_back('|');
  for (const SpreadTerm& t : x.spread) {
    int64_t fields[] = {t.key,         t.level,          t.max_skew,
                        t.min_domains, t.honor_affinity, t.honor_taints};
    AppendBytes(key, fields, sizeof(fields));
  }
  return key;
}

namespace {
std::string PodContext(const Pod& pod) { return "pod " + pod.name; }
}  // namespace

Status CheckPodRequest(const Pod& pod) {
  const PodRequest& r = pod.request;
  auto bad = [&](std::string what) { return InvalidArgument(PodContext(pod) + ": " + what); };
  if (r.cpu_milli < 0) return bad("cpu request is negative");
  if (r.memory_bytes < 0) return bad("memory request is negative");
  if (r.whole_gpus < 0) return bad("nvidia.com/gpu is negative");
  if (r.gpu_fraction < 0 || r.gpu_fraction > kMilliPerGpu)
    return bad("gpu-fraction " + std::to_string(r.gpu_fraction) +
               "m is outside (0, 1000m]: a fraction of one device must be more than 0 and at "
               "most 1");
  if (r.gpu_memory_mib < 0) return bad("gpu-memory is negative");
  if (r.gpu_fraction > 0 && r.gpu_memory_mib > 0)
    return bad("gpu-fraction and gpu-memory are both set; ask for one of them");
  if (r.whole_gpus > 0 && r.IsShared())
    return bad(
        "nvidia.com/gpu and a GPU-sharing annotation are both set; whole GPUs never "
        "share a device with fractions");
  if (r.num_devices < 1) return bad("gpu-fraction-num-devices must be at least 1");
  if (r.num_devices > 1 && !r.IsShared())
    return bad("gpu-fraction-num-devices needs gpu-fraction or gpu-memory");
  if (r.num_devices > kMaxDevicesPerNode)
    return bad("gpu-fraction-num-devices exceeds " + std::to_string(kMaxDevicesPerNode));
  if (r.whole_gpus > kMaxDevicesPerNode)
    return bad("nvidia.com/gpu exceeds " + std::to_string(kMaxDevicesPerNode) +
               " devices, more than any node holds");
  if (r.mig_count < 0) return bad("MIG count is negative");
  if (r.mig_count > 0 && (r.whole_gpus > 0 || r.IsShared()))
    return bad("a MIG profile cannot be combined with whole or shared GPUs");
  if (r.mig_count > 0 && r.mig_milli_each <= 0) return bad("MIG profile has no compute slices");
  if (r.claim_gpus < 0 || r.claim_gpus > kMaxClaimGpus)
    return bad("resource claims' GPUs outside [0, " + std::to_string(kMaxClaimGpus) + "]");
  const PodExtras& x = ExtrasOf(pod);
  for (const PodTerm& t : x.affinity)
    if (t.key != x.affinity.front().key)
      return bad("pod affinity terms of more than one key (they are counted together)");
  for (const OtherResource& o : x.other_resources)
    if (o.milli < 0) return bad("a request of another resource is negative");
  if (x.spread.size() > kMaxSpreadTerms)
    return bad("more than " + std::to_string(kMaxSpreadTerms) + " topology spread constraints");
  for (const SpreadTerm& t : x.spread)
    if (t.max_skew < 1 || t.min_domains < 1)
      return bad("topology spread constraint with maxSkew or minDomains below 1");
  return Status::Ok();
}

namespace {

Status CheckAllocation(const Snapshot& s, const Pod& pod) {
  const Allocation& a = pod.allocation;
  auto bad = [&](std::string what) {
    return InvalidArgument(PodContext(pod) + ": running allocation " + what);
  };
  if (a.node >= s.nodes.size()) return bad("names no known node");
  const Node& node = s.nodes[a.node];
  int n = node.num_devices;
  if (n < 64 && (a.device_mask >> n) != 0)
    return bad("uses a device that node " + node.name + " does not have");
  int used = std::popcount(a.device_mask);
  const PodRequest& r = pod.request;
  if (r.whole_gpus > 0 && (used != r.whole_gpus || a.portion != kMilliPerGpu))
    return bad("does not hold exactly its " + std::to_string(r.whole_gpus) + " whole devices");
  if (r.IsShared() && (used != r.num_devices || a.portion <= 0 || a.portion > kMilliPerGpu))
    return bad("does not hold a portion of exactly " + std::to_string(r.num_devices) +
               " device(s)");
  if (!r.IsShared() && r.whole_gpus == 0 && used != 0)
    return bad("holds devices it did not ask for");
  return Status::Ok();
}

}  // namespace

void SortOtherResources(std::vector<OtherResource>& resources) {
  std::sort(resources.begin(), resources.end(),
            [](const OtherResource& a, const OtherResource& b) { return a.name < b.name; });
}

void SortExtras(PodExtras& extras) {
  auto unique = [](std::vector<StringId>& ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  };
  unique(extras.marks);
  unique(extras.host_ports);
  SortOtherResources(extras.other_resources);
}

void Snapshot::Finalize(bool derive_shapes) {
  for (Queue& q : queues) q.children.clear();
  for (QueueId q = 0; q < queues.size(); ++q) {
    QueueId parent = queues[q].parent;
    if (parent < queues.size()) queues[parent].children.push_back(q);
  }
  for (PodGroup& g : groups) g.pods.clear();
  for (PodId p = 0; p < pods.size(); ++p) {
    GroupId g = pods[p].group;
    if (g < groups.size()) groups[g].pods.push_back(p);
  }
  for (PodGroup& g : groups) {
    std::stable_sort(g.pods.begin(), g.pods.end(), [&](PodId a, PodId b) {
      return pods[a].creation_time < pods[b].creation_time;
    });
  }
  for (Node& n : nodes) {
    std::sort(n.labels.begin(), n.labels.end());
    SortOtherResources(n.other_resources);
  }
  for (Pod& p : pods) {
    std::sort(p.node_selector.begin(), p.node_selector.end());
    for (LabelIn& in : p.node_affinity) std::sort(in.values.begin(), in.values.end());
    if (p.extras) SortExtras(*p.extras);
  }
  if (!derive_shapes) return;
  std::unordered_map<std::string, ShapeId> shapes;
  for (Pod& p : pods) {
    auto [it, inserted] = shapes.emplace(ShapeKey(p), static_cast<ShapeId>(shapes.size()));
    p.shape = it->second;
  }
  num_shapes = static_cast<int32_t>(shapes.size());
}

Status Validate(const Snapshot& s) {
  for (const Node& n : s.nodes) {
    auto bad = [&](std::string what) { return InvalidArgument("node " + n.name + ": " + what); };
    if (n.cpu_milli < 0 || n.memory_bytes < 0) return bad("negative allocatable cpu or memory");
    if (n.num_devices < 0 || n.num_devices > kMaxDevicesPerNode)
      return bad("has " + std::to_string(n.num_devices) + " GPUs; at most " +
                 std::to_string(kMaxDevicesPerNode) + " are supported");
    if (n.first_device + static_cast<size_t>(n.num_devices) > s.devices.size())
      return bad("GPU devices out of range");
    for (const MigSlot& m : n.mig)
      if (m.capacity < 0 || m.gpu_milli_each <= 0) return bad("invalid MIG profile capacity");
  }
  for (QueueId id = 0; id < s.queues.size(); ++id) {
    const Queue& q = s.queues[id];
    auto bad = [&](std::string what) { return InvalidArgument("queue " + q.name + ": " + what); };
    if (q.parent != kNone && q.parent >= s.queues.size()) return bad("unknown parentQueue");
    // A walk longer than the number of queues can only be a cycle.
    QueueId walk = q.parent;
    for (size_t steps = 0; walk != kNone; ++steps) {
      if (walk == id || steps > s.queues.size()) return bad("parentQueue chain forms a cycle");
      walk = s.queues[walk].parent;
    }
    for (Resource r : kAllResources) {
      const QueueResource& qr = q.resources[r];
      std::string field = "spec.resources." + std::string(ResourceName(r));
      if (qr.quota < kUnlimited) return bad(field + ".quota is below -1");
      if (qr.limit < kUnlimited) return bad(field + ".limit is below -1");
      if (qr.over_quota_weight_milli < 0) return bad(field + ".overQuotaWeight is negative");
      if (q.usage_ppm[r] < 0 || q.usage_ppm[r] > kMaxUsagePpm)
        return bad(std::string(ResourceName(r)) + " usage outside [0, " +
                   std::to_string(kMaxUsagePpm) + "] ppm of the cluster");
      if (qr.quota != kUnlimited && qr.limit != kUnlimited && qr.quota > qr.limit)
        return bad(field + ".quota " + FormatAmount(r, qr.quota) + " exceeds its limit " +
                   FormatAmount(r, qr.limit));
    }
  }
  for (const PodGroup& g : s.groups) {
    auto bad = [&](std::string what) {
      return InvalidArgument("podgroup " + g.name + ": " + what);
    };
    if (g.queue >= s.queues.size()) return bad("unknown queue");
    if (!s.IsLeaf(g.queue))
      return bad("queue " + s.queues[g.queue].name +
                 " has child queues; only leaf queues hold jobs");
    if (g.min_member < 1) return bad("minMember must be at least 1");
    for (const SubGroup& sg : g.subgroups)
      if (sg.min_member < 0) return bad("subgroup " + sg.name + " has a negative minMember");
    if (Status tree = SubGroupTree::Of(g).Check(); !tree.ok()) return bad(tree.message());
  }
  for (const Pod& p : s.pods) {
    if (p.group >= s.groups.size()) return InvalidArgument(PodContext(p) + ": unknown pod group");
    if (p.subgroup >= static_cast<int32_t>(s.groups[p.group].subgroups.size()))
      return InvalidArgument(PodContext(p) + ": unknown subgroup");
    VT_RETURN_IF_ERROR(CheckPodRequest(p));
    if (p.phase == PodPhase::kRunning) VT_RETURN_IF_ERROR(CheckAllocation(s, p));
  }
  return Status::Ok();
}

Result<Milli> MigProfileGpuMilli(std::string_view profile) {
  // "<g>g.<m>gb": g compute slices of the 7 an A100/H100 has.
  size_t g_end = profile.find('g');
  int slices = 0;
  auto [ptr, ec] =
      std::from_chars(profile.data(), profile.data() + std::min(g_end, profile.size()), slices);
  if (g_end == std::string_view::npos || g_end == 0 || ec != std::errc() ||
      ptr != profile.data() + g_end || slices < 1 || slices > 7 ||
      profile.substr(g_end).find("gb") == std::string_view::npos)
    return InvalidArgument("MIG profile \"" + std::string(profile) +
                           "\" is not of the form <g>g.<m>gb with g from 1 to 7");
  return (slices * kMilliPerGpu + 6) / 7;
}

Milli PortionOnDevice(const PodRequest& r, int32_t device_mib) {
  if (r.gpu_fraction > 0) return r.gpu_fraction;
  if (r.gpu_memory_mib > 0) {
    if (device_mib <= 0) return kMilliPerGpu + 1;  // unknown memory: cannot price it
    return (static_cast<int64_t>(r.gpu_memory_mib) * kMilliPerGpu + device_mib - 1) / device_mib;
  }
  return 0;
}

int32_t LargestDeviceMib(const std::vector<GpuDevice>& devices) {
  int32_t largest = 0;
  for (const GpuDevice& d : devices) largest = std::max(largest, d.memory_mib);
  return largest;
}

Milli EstimatedGpuMilli(const PodRequest& r, int32_t largest_device_mib) {
  const Milli claims = r.claim_gpus * kMilliPerGpu;
  if (r.whole_gpus > 0) return claims + r.whole_gpus * kMilliPerGpu;
  if (r.IsShared())
    return claims +
           std::min<Milli>(PortionOnDevice(r, largest_device_mib), kMilliPerGpu) * r.num_devices;
  if (r.mig_count > 0) return claims + r.mig_count * r.mig_milli_each;
  return claims;
}

}  // namespace vtenant::sched

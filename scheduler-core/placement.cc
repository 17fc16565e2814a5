#include "scheduler-core/placement.h"

#include <algorithm>
#include <bit>

namespace vtenant::sched {
namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

bool Tolerates(const Taint& taint, const Toleration& t) {
  if (t.effect && *t.effect != taint.effect) return false;
  if (t.key == kNoString) return t.exists;
  if (t.key != taint.key) return false;
  return t.exists || t.value == taint.value;
}

}  // namespace

std::string_view FitFailureText(FitFailure failure) {
  switch (failure) {
    case FitFailure::kFits:
      return "fits";
    case FitFailure::kUnschedulable:
      return "node is cordoned";
    case FitFailure::kNodeSelector:
      return "node selector or affinity does not match";
    case FitFailure::kTaint:
      return "untolerated taint";
    case FitFailure::kOutsideDomain:
      return "outside the gang's topology domain";
    case FitFailure::kPodCount:
      return "too many pods";
    case FitFailure::kCpu:
      return "insufficient cpu";
    case FitFailure::kMemory:
      return "insufficient memory";
    case FitFailure::kWholeGpus:
      return "not enough idle whole GPUs";
    case FitFailure::kSharedGpu:
      return "no GPU device with the requested portion free";
    case FitFailure::kGpuMemoryTooLarge:
      return "GPU devices have less memory than requested";
    case FitFailure::kMig:
      return "not enough free MIG instances of the profile";
  }
  return "unknown";
}

bool MatchesSelector(const Node& node, const std::vector<Label>& selector) {
  // Both sorted by key: one merge walk.
  auto it = node.labels.begin();
  for (const Label& want : selector) {
    while (it != node.labels.end() && it->key < want.key) ++it;
    if (it == node.labels.end() || it->key != want.key || it->value != want.value) return false;
  }
  return true;
}

bool MatchesAffinity(const Node& node, const std::vector<LabelIn>& affinity) {
  for (const LabelIn& in : affinity) {
    auto it = std::lower_bound(node.labels.begin(), node.labels.end(), Label{in.key, 0});
    if (it == node.labels.end() || it->key != in.key ||
        !std::binary_search(in.values.begin(), in.values.end(), it->value))
      return false;
  }
  return true;
}

bool ToleratesTaints(const Node& node, const std::vector<Toleration>& tolerations) {
  for (const Taint& taint : node.taints) {
    if (taint.effect == TaintEffect::kPreferNoSchedule) continue;
    bool tolerated = false;
    for (const Toleration& t : tolerations) tolerated = tolerated || Tolerates(taint, t);
    if (!tolerated) return false;
  }
  return true;
}

Placer::Placer(const ClusterState& state, PlacementPolicy policy, uint64_t seed)
    : state_(&state), snapshot_(&state.snapshot()), policy_(policy), rng_(seed) {
  for (const GpuDevice& d : snapshot_->devices)
    largest_device_mib_ = std::max(largest_device_mib_, d.memory_mib);
}

uint64_t Placer::NextRandom() { return SplitMix64(rng_); }

Milli Placer::MinimumGpuOnNode(PodId pod) const {
  const PodRequest& r = snapshot_->pods[pod].request;
  if (r.whole_gpus > 0) return r.whole_gpus * kMilliPerGpu;
  if (r.IsShared()) return PortionOnDevice(r, largest_device_mib_) * r.num_devices;
  return 0;
}

DeviceFit ClassifyDevice(Milli used, Milli portion) {
  if (used == 0) return DeviceFit::kEmpty;
  const Milli free = kMilliPerGpu - used;
  return free % portion <= kMilliPerGpu % portion ? DeviceFit::kComplements : DeviceFit::kMixes;
}

bool Placer::ChooseDevices(const PodRequest& r, const Node& node, DeviceFit worst,
                           Allocation* out) const {
  const int n = node.num_devices;
  // Candidate devices and a preference key each; small (<= 64), on the stack.
  std::array<std::pair<int64_t, int>, kMaxDevicesPerNode> cand;
  int count = 0;
  int want = 0;
  Milli portion = 0;
  if (r.whole_gpus > 0) {
    want = r.whole_gpus;
    portion = kMilliPerGpu;
    for (int i = 0; i < n; ++i)
      if (state_->DeviceUsed(node.first_device + i) == 0) cand[count++] = {i, i};
  } else {
    want = r.num_devices;
    portion = PortionOnDevice(r, n > 0 ? snapshot_->devices[node.first_device].memory_mib : 0);
    if (portion > kMilliPerGpu) return false;
    for (int i = 0; i < n; ++i) {
      DeviceId d = node.first_device + i;
      Milli used = state_->DeviceUsed(d);
      if (state_->DeviceWhole(d) || kMilliPerGpu - used < portion) continue;
      int64_t key = i;
      switch (policy_) {
        case PlacementPolicy::kBinpack: {
          // Complementing devices, then empty ones, then any; fullest first.
          const DeviceFit fit = ClassifyDevice(used, portion);
          if (fit > worst) continue;
          key = (int64_t{static_cast<uint8_t>(fit)} << 32) + (kMilliPerGpu - used) * 64 + i;
          break;
        }
        case PlacementPolicy::kSpread:
          key = used * 64 + i;
          break;  // emptiest first
        case PlacementPolicy::kBestFit:
        case PlacementPolicy::kRandomFit:
          break;  // index order (random-fit shuffles below)
      }
      cand[count++] = {key, i};
    }
  }
  if (count < want) return false;
  if (out == nullptr) return true;
  if (policy_ == PlacementPolicy::kRandomFit) {
    // A const method with a generator: derive the draw from the node state so
    // the same question gets the same answer.
    uint64_t seed = rng_ ^ (uint64_t{node.first_device} << 20) ^ static_cast<uint64_t>(count);
    for (int i = count - 1; i > 0; --i) std::swap(cand[i], cand[SplitMix64(seed) % (i + 1)]);
  } else {
    std::partial_sort(cand.begin(), cand.begin() + want, cand.begin() + count);
  }
  out->device_mask = 0;
  for (int i = 0; i < want; ++i) out->device_mask |= uint64_t{1} << cand[i].second;
  out->portion = portion;
  return true;
}

FitFailure Placer::Check(PodId pod, NodeId node, Allocation* out) const {
  return CheckUpTo(pod, node, DeviceFit::kMixes, out);
}

FitFailure Placer::CheckUpTo(PodId pod_id, NodeId node_id, DeviceFit worst, Allocation* out) const {
  const Pod& pod = snapshot_->pods[pod_id];
  const Node& node = snapshot_->nodes[node_id];
  const PodRequest& r = pod.request;
  const NodeFree& free = state_->Free(node_id);
  if (!node.schedulable) return FitFailure::kUnschedulable;
  if (!pod.node_selector.empty() && !MatchesSelector(node, pod.node_selector))
    return FitFailure::kNodeSelector;
  if (!pod.node_affinity.empty() && !MatchesAffinity(node, pod.node_affinity))
    return FitFailure::kNodeSelector;
  if (!node.taints.empty() && !ToleratesTaints(node, pod.tolerations)) return FitFailure::kTaint;
  if (free.pods < 1) return FitFailure::kPodCount;
  if (free.cpu_milli < r.cpu_milli) return FitFailure::kCpu;
  if (free.memory_bytes < r.memory_bytes) return FitFailure::kMemory;
  if (r.whole_gpus > 0 || r.IsShared()) {
    if (r.IsShared() && node.num_devices > 0 &&
        PortionOnDevice(r, snapshot_->devices[node.first_device].memory_mib) > kMilliPerGpu)
      return FitFailure::kGpuMemoryTooLarge;
    if (!ChooseDevices(r, node, worst, out))
      return r.whole_gpus > 0 ? FitFailure::kWholeGpus : FitFailure::kSharedGpu;
  } else if (out != nullptr) {
    out->device_mask = 0;
    out->portion = 0;
  }
  if (r.mig_count > 0) {
    bool found = false;
    for (size_t i = 0; i < node.mig.size(); ++i)
      if (node.mig[i].profile == r.mig_profile && state_->MigFree(node_id, i) >= r.mig_count)
        found = true;
    if (!found) return FitFailure::kMig;
  }
  if (out != nullptr) out->node = node_id;
  return FitFailure::kFits;
}

bool Placer::Find(PodId pod, const NodeFilter& filter, Allocation* out) {
  const ClusterState::FreeGpuIndex& index = state_->ByFreeGpu();
  const Milli need = MinimumGpuOnNode(pod);
  auto first = index.lower_bound({need, 0});
  switch (policy_) {
    case PlacementPolicy::kBinpack:
      if (const PodRequest& r = snapshot_->pods[pod].request; r.IsShared() && r.num_devices == 1)
        return FindSharedBinpack(pod, need, filter, out);
      for (auto it = first; it != index.end(); ++it)
        if (filter.Accepts(it->second) && Check(pod, it->second, out) == FitFailure::kFits)
          return true;
      return false;
    case PlacementPolicy::kSpread:
      for (auto it = index.rbegin(); it != index.rend() && it->first >= need; ++it)
        if (filter.Accepts(it->second) && Check(pod, it->second, out) == FitFailure::kFits)
          return true;
      return false;
    case PlacementPolicy::kBestFit: {
      const PodRequest& r = snapshot_->pods[pod].request;
      double best_score = 0;
      NodeId best = kNone;
      for (auto it = first; it != index.end(); ++it) {
        NodeId n = it->second;
        if (!filter.Accepts(n) || Check(pod, n, nullptr) != FitFailure::kFits) continue;
        const Node& node = snapshot_->nodes[n];
        const NodeFree& free = state_->Free(n);
        double score = 0;
        if (node.num_devices > 0)
          score += double(free.gpu - need) / double(node.num_devices * kMilliPerGpu);
        if (node.cpu_milli > 0) score += double(free.cpu_milli - r.cpu_milli) / node.cpu_milli;
        if (best == kNone || score < best_score || (score == best_score && n < best)) {
          best = n;
          best_score = score;
        }
      }
      return best != kNone && Check(pod, best, out) == FitFailure::kFits;
    }
    case PlacementPolicy::kRandomFit: {
      // Reservoir sampling: one pass, uniform over the nodes that fit.
      NodeId chosen = kNone;
      uint64_t seen = 0;
      for (auto it = first; it != index.end(); ++it) {
        NodeId n = it->second;
        if (!filter.Accepts(n) || Check(pod, n, nullptr) != FitFailure::kFits) continue;
        if (NextRandom() % ++seen == 0) chosen = n;
      }
      return chosen != kNone && Check(pod, chosen, out) == FitFailure::kFits;
    }
  }
  return false;
}

bool Placer::FindSharedBinpack(PodId pod, Milli need, const NodeFilter& filter,
                               Allocation* out) const {
  if (need <= 0 || need > kMilliPerGpu) return false;
  const ClusterState::SharedDeviceIndex& shared = state_->SharedDevices();
  auto try_device = [&](DeviceId d, DeviceFit worst) {
    const NodeId n = snapshot_->devices[d].node;
    return filter.Accepts(n) && CheckUpTo(pod, n, worst, out) == FitFailure::kFits;
  };
  // 1. Started devices the portion complements, tightest first. Their free
  // values lie in [k * need, k * need + 1000 % need]; the walk jumps from
  // one such band to the next. (`need` is the portion on the largest
  // device; for gpu-memory pods on smaller devices CheckUpTo judges with
  // the real portion.)
  const Milli slack = kMilliPerGpu % need;
  for (auto it = shared.lower_bound({need, 0}); it != shared.end();) {
    const Milli over = it->first % need;
    if (over > slack) {
      it = shared.lower_bound({it->first - over + need, 0});
      continue;
    }
    if (try_device(it->second, DeviceFit::kComplements)) return true;
    ++it;
  }
  // 2. An empty device, on the node with the least free GPU that has one
  // (a node with an empty device has at least a whole GPU free).
  const ClusterState::FreeGpuIndex& nodes = state_->ByFreeGpu();
  for (auto it = nodes.lower_bound({kMilliPerGpu, 0}); it != nodes.end(); ++it)
    if (filter.Accepts(it->second) &&
        CheckUpTo(pod, it->second, DeviceFit::kEmpty, out) == FitFailure::kFits)
      return true;
  // 3. Any started device that still takes the portion, tightest first.
  for (auto it = shared.lower_bound({need, 0}); it != shared.end(); ++it)
    if (try_device(it->second, DeviceFit::kMixes)) return true;
  return false;
}

std::array<int32_t, kNumFitFailures> Placer::Diagnose(PodId pod) const {
  std::array<int32_t, kNumFitFailures> counts{};
  for (NodeId n = 0; n < snapshot_->nodes.size(); ++n)
    ++counts[static_cast<int>(Check(pod, n, nullptr))];
  return counts;
}

}  // namespace vtenant::sched

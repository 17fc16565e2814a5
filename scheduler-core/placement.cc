#include "scheduler-core/placement.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <vector>

#include "scheduler-core/split_mix64.h"

namespace vtenant::sched {
namespace {

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
    case FitFailure::kPodCount:
      return "max pods reached";
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
    case FitFailure::kPodAffinity:
      return "pod affinity does not match";
    case FitFailure::kPodAntiAffinity:
      return "pod anti-affinity does not match";
    case FitFailure::kExistingPodAntiAffinity:
      return "existing pods' anti-affinity does not match";
    case FitFailure::kTopologySpread:
      return "topology spread constraints do not match";
    case FitFailure::kHostPort:
      return "host ports in use";
    case FitFailure::kOtherResource:
      return "insufficient other resources";
    case FitFailure::kVolumeCount:
      return "exceed max volume count";
    case FitFailure::kTogether:
      return "not on the node of the pods that share its resource claim";
    case FitFailure::kDeviceClaims:
      return "cannot allocate all claims";
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
    const StringId value = LabelValue(node, in.key);
    if (value == kNoString || !std::binary_search(in.values.begin(), in.values.end(), value))
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

Placer::Placer(const ClusterState& state, const Options& options)
    : state_(&state), snapshot_(&state.snapshot()), rule_(MakePlacementRule(state, options)) {
  binpack_devices_ = rule_->OrdersDevicesAsBinpack();
  shuffles_ = rule_->ShufflesDevices();
  for (const GpuDevice& d : snapshot_->devices)
    largest_device_mib_ = std::max(largest_device_mib_, d.memory_mib);
}

Placer::~Placer() = default;

bool PlacementRule::DeviceKey(Milli, Milli, int index, DeviceFit, int64_t* key) const {
  *key = index;
  return true;
}

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

int32_t Placer::NewReservations(const NodeBrief& node, const Allocation& a) const {
  int32_t idle = 0;
  for (uint64_t mask = a.device_mask; mask != 0; mask &= mask - 1)
    idle += state_->DeviceUsed(node.first_device + std::countr_zero(mask)) == 0;
  return idle;
}

bool Placer::ChooseDevices(const PodRequest& r, NodeId node_id, const NodeBrief& node,
                           Milli portion, DeviceFit worst, Allocation* out,
                           bool shared_only) const {
  const int n = node.num_devices;
  // Every device a pod may take adds at least its portion to the node's GPU
  // room (an idle one a whole GPU), so a node with less room than the pod's
  // devices need has too few of them: no device need be read.
  const int want = r.whole_gpus > 0 ? r.whole_gpus : r.num_devices;
  if (r.whole_gpus > 0) portion = kMilliPerGpu;
  if (portion > kMilliPerGpu) return false;
  if (state_->GpuRoom(node_id) < want * portion) return false;
  const bool shuffles = shuffles_;
  if (r.whole_gpus > 0 && !shuffles) {
    // Idle devices in index order (the key of each is its index): the first
    // `want` of them, and no sort.
    uint64_t mask = 0;
    int count = 0;
    for (int i = 0; i < n && count < want; ++i)
      if (state_->DeviceUsed(node.first_device + i) == 0) {
        mask |= uint64_t{1} << i;
        ++count;
      }
    if (count < want) return false;
    if (out != nullptr) {
      out->device_mask = mask;
      out->portion = kMilliPerGpu;
    }
    return true;
  }
  // Candidate devices and a preference key each; small (<= 64), on the
  // stack, and left uninitialized: only cand[0, count) is read, and zeroing
  // all of it cost more than the rest of a failed check.
  struct Candidate {
    int64_t key;
    int index;
    bool operator<(const Candidate& o) const {
      return key != o.key ? key < o.key : index < o.index;
    }
  };
  Candidate cand[kMaxDevicesPerNode];
  int count = 0;
  if (r.whole_gpus > 0) {
    for (int i = 0; i < n; ++i)
      if (state_->DeviceUsed(node.first_device + i) == 0) cand[count++] = {i, i};
  } else {
    // One device wanted and no shuffle: the least (key, index) is the pick,
    // kept as the devices go by instead of sorted afterwards.
    const bool single = want == 1 && !shuffles;
    const Milli slack = kMilliPerGpu % portion;
    Candidate best{INT64_MAX, -1};
    for (int i = 0; i < n; ++i) {
      DeviceId d = node.first_device + i;
      Milli used = state_->DeviceUsed(d);
      if (state_->DeviceWhole(d) || kMilliPerGpu - used < portion) continue;
      if (shared_only && used == 0) continue;
      int64_t key = i;
      if (binpack_devices_) {
        if (!BinpackDeviceKey(used, portion, slack, i, worst, &key)) continue;
      } else if (!rule_->DeviceKey(used, portion, i, worst, &key)) {
        continue;
      }
      if (single) {
        if (Candidate{key, i} < best) best = {key, i};
        ++count;
      } else {
        cand[count++] = {key, i};
      }
    }
    if (count < want) return false;
    if (single) {
      if (out != nullptr) {
        out->device_mask = uint64_t{1} << best.index;
        out->portion = portion;
      }
      return true;
    }
  }
  if (count < want) return false;
  if (out == nullptr) return true;
  if (shuffles) {
    // A const method with a generator: derive the draw from the node state so
    // the same question gets the same answer.
    uint64_t seed =
        rule_->ShuffleSeed() ^ (uint64_t{node.first_device} << 20) ^ static_cast<uint64_t>(count);
    for (int i = count - 1; i > 0; --i) std::swap(cand[i], cand[SplitMix64(seed) % (i + 1)]);
  } else {
    std::partial_sort(cand, cand + want, cand + count);
  }
  out->device_mask = 0;
  for (int i = 0; i < want; ++i) out->device_mask |= uint64_t{1} << cand[i].index;
  out->portion = portion;
  return true;
}

FitFailure Placer::CheckUpTo(PodId pod_id, NodeId node_id, DeviceFit worst, Allocation* out) const {
  const Pod& pod = snapshot_->pods[pod_id];
  // The Node record itself is read only for selectors, taints and MIG.
  const NodeBrief& brief = state_->Brief(node_id);
  const Node& node = snapshot_->nodes[node_id];
  const PodRequest& r = pod.request;
  if (!brief.schedulable) return FitFailure::kUnschedulable;
  if (!pod.node_selector.empty() && !MatchesSelector(node, pod.node_selector))
    return FitFailure::kNodeSelector;
  if (!pod.node_affinity.empty() && !MatchesAffinity(node, pod.node_affinity))
    return FitFailure::kNodeSelector;
  if (brief.tainted && !ToleratesTaints(node, pod.tolerations)) return FitFailure::kTaint;
  if (pod.extras) {
    switch (state_->Terms().Refusal(pod_id, node_id)) {
      case TermRefusal::kNone:
        break;
      case TermRefusal::kAffinity:
        return FitFailure::kPodAffinity;
      case TermRefusal::kAntiAffinity:
        return FitFailure::kPodAntiAffinity;
      case TermRefusal::kExistingAntiAffinity:
        return FitFailure::kExistingPodAntiAffinity;
      case TermRefusal::kTopologySpread:
        return FitFailure::kTopologySpread;
      case TermRefusal::kTogether:
        return FitFailure::kTogether;
    }
    switch (state_->Extras().Shortage(pod_id, node_id)) {
      case ExtrasShortage::kNone:
        break;
      case ExtrasShortage::kHostPort:
        return FitFailure::kHostPort;
      case ExtrasShortage::kResource:
        return FitFailure::kOtherResource;
      case ExtrasShortage::kVolumeCount:
        return FitFailure::kVolumeCount;
      case ExtrasShortage::kDeviceClaims:
        return FitFailure::kDeviceClaims;
    }
  }
  if (FitFailure basics = CheckBasics(r, node_id); basics != FitFailure::kFits) return basics;
  if (r.whole_gpus > 0 || r.IsShared()) {
    // The portion per device, on this node's devices (all of one model).
    Milli portion = 0;
    if (r.IsShared()) {
      portion = PortionOnDevice(r, brief.device_memory_mib);
      if (brief.num_devices > 0 && portion > kMilliPerGpu) return FitFailure::kGpuMemoryTooLarge;
    }
    Allocation chosen;
    Allocation* where = out != nullptr || !r.IsShared() ? out : &chosen;
    if (!ChooseDevices(r, node_id, brief, portion, worst, where))
      return r.whole_gpus > 0 ? FitFailure::kWholeGpus : FitFailure::kSharedGpu;
    // Each idle device a shared pod starts sharing brings a reservation pod
    // along, which takes a pod slot too; short of slots, only devices
    // shared already will do.
    if (r.IsShared() && state_->Free(node_id).pods < 1 + NewReservations(brief, *where) &&
        !ChooseDevices(r, node_id, brief, portion, worst, where, /*shared_only=*/true))
      return FitFailure::kPodCount;
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
  if (!snapshot_->pods[pod].extras) return rule_->Find(*this, pod, filter, out);
  // The rules pick among the nodes the filter accepts; a node the
  // inter-pod terms, other resources or host ports keep it from is not one
  // of them (fgd judges one node of each state for all, and such a node
  // says nothing of the others).
  NodeFilter narrowed = filter;
  if (state_->Terms().Concerns(pod) || state_->Extras().Concerns(pod)) {
    narrowed.state = state_;
    narrowed.pod = pod;
  }
  if (state_->Terms().Ranks(pod)) return FindPreferred(pod, narrowed, out);
  return rule_->Find(*this, pod, narrowed, out);
}

bool Placer::FindPreferred(PodId pod, const NodeFilter& filter, Allocation* out) {
  const size_t num_nodes = snapshot_->nodes.size();
  std::vector<int64_t> score;
  state_->Terms().Preferences(pod, &score);
  if (std::all_of(score.begin(), score.end(), [&](int64_t s) { return s == score.front(); }))
    return rule_->Find(*this, pod, filter, out);  // nothing to rank by
  // The distinct scores, best first: few as a rule (the sums of a few
  // domains' counts), so kept sorted as they are met, short of many.
  std::vector<int64_t> levels;
  constexpr size_t kFewLevels = 64;
  for (NodeId n = 0; n < num_nodes; ++n) {
    const int64_t s = score[n];
    if (n > 0 && s == score[n - 1]) continue;  // neighbours often share a domain
    auto at = std::lower_bound(levels.begin(), levels.end(), s, std::greater<>());
    if (at != levels.end() && *at == s) continue;
    if (levels.size() == kFewLevels) {
      levels = score;
      std::sort(levels.begin(), levels.end(), std::greater<>());
      levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
      break;
    }
    levels.insert(at, s);
  }
  // Each node's rank among the scores, as a pin of one more "domain".
  std::vector<uint32_t> rank(num_nodes);
  for (NodeId n = 0; n < num_nodes; ++n)
    rank[n] = n > 0 && score[n] == score[n - 1]
                  ? rank[n - 1]
                  : static_cast<uint32_t>(
                        std::lower_bound(levels.begin(), levels.end(), score[n], std::greater<>()) -
                        levels.begin());
  std::vector<DomainPin> pins(filter.pins.begin(), filter.pins.end());
  pins.push_back({&rank, 0});
  NodeFilter ranked = filter;
  ranked.pins = pins;
  for (uint32_t r = 0; r < levels.size(); ++r) {
    pins.back().domain = r;
    if (rule_->Find(*this, pod, ranked, out)) return true;
  }
  return false;
}

std::array<int32_t, kNumFitFailures> Placer::Diagnose(PodId pod) const {
  std::array<int32_t, kNumFitFailures> counts{};
  for (NodeId n = 0; n < snapshot_->nodes.size(); ++n)
    ++counts[static_cast<int>(Check(pod, n, nullptr))];
  return counts;
}

}  // namespace vtenant::sched

#include "scheduler-core/classic_rules.h"

#include "scheduler-core/placement.h"
#include "scheduler-core/split_mix64.h"

namespace vtenant::sched {
namespace {

// True when Placer::Check would refuse the node for its pod count, CPU or
// memory alone (see Placer::CheckBasics, asked first in the walks below).
bool OutOfBasics(const Placer& placer, const PodRequest& r, NodeId n) {
  return placer.CheckBasics(r, n) != FitFailure::kFits;
}

}  // namespace

bool BinpackRule::DeviceKey(Milli used, Milli portion, int index, DeviceFit worst,
                            int64_t* key) const {
  return BinpackDeviceKey(used, portion, kMilliPerGpu % portion, index, worst, key);
}

bool BinpackRule::Find(const Placer& placer, PodId pod, const NodeFilter& filter, Allocation* out) {
  const ClusterState::FreeGpuIndex& index = placer.state().ByFreeGpu();
  const Milli need = placer.MinimumGpuOnNode(pod);
  const PodRequest& r = placer.snapshot().pods[pod].request;
  if (r.IsShared() && r.num_devices == 1) return FindShared(placer, pod, need, filter, out);
  const ClusterState& state = placer.state();
  const std::vector<NodeId>& log = state.ChangeLog();
  constexpr RoomIndex::Key kPastAll = INT64_MAX;
  BasicsMemo* memo = nullptr;
  for (BasicsMemo& m : memos_)
    if (m.valid && m.cpu_milli == r.cpu_milli && m.memory_bytes == r.memory_bytes && m.need == need)
      memo = &m;
  auto it = index.From(need);
  if (memo != nullptr && memo->log_seen <= log.size() &&
      log.size() - memo->log_seen <= kMaxLogLook) {
    // Nodes changed since the memo that now pass CheckBasics may lie
    // before its start: the walk starts at the first of them.
    RoomIndex::Entry from = memo->from;
    for (size_t i = memo->log_seen; i < log.size(); ++i) {
      const NodeId n = log[i];
      if (!state.Brief(n).schedulable) continue;
      const RoomIndex::Entry at{state.GpuRoom(n), n};
      if (at.first < need || !(at < from) || OutOfBasics(placer, r, n)) continue;
      from = at;
    }
    it = index.From(from.first, from.second);
  } else if (memo == nullptr) {
    memo = &memos_[next_memo_];
    next_memo_ = (next_memo_ + 1) % memos_.size();
  }
  RoomIndex::Entry first_pass{kPastAll, 0};
  bool found = false;
  for (; it != index.end(); ++it) {
    if (OutOfBasics(placer, r, it->second)) continue;
    if (first_pass.first == kPastAll) first_pass = *it;
    if (filter.Accepts(it->second) && placer.Check(pod, it->second, out) == FitFailure::kFits) {
      found = true;
      break;
    }
  }
  *memo = {true, r.cpu_milli, r.memory_bytes, need, first_pass, log.size()};
  return found;
}

bool BinpackRule::FindShared(const Placer& placer, PodId pod, Milli need, const NodeFilter& filter,
                             Allocation* out) {
  if (need <= 0 || need > kMilliPerGpu) return false;
  const Snapshot& s = placer.snapshot();
  const PodRequest& r = s.pods[pod].request;
  const ClusterState::SharedDeviceIndex& shared = placer.state().SharedDevices();
  auto try_device = [&](DeviceId d, DeviceFit worst) {
    const NodeId n = s.devices[d].node;
    return !OutOfBasics(placer, r, n) && filter.Accepts(n) &&
           placer.CheckUpTo(pod, n, worst, out) == FitFailure::kFits;
  };
  // 1. Started devices the portion complements, tightest first. Their free
  // values lie in [k * need, k * need + 1000 % need]; the walk jumps from
  // one such band to the next. (`need` is the portion on the largest
  // device; for gpu-memory pods on smaller devices CheckUpTo judges with
  // the real portion.)
  const Milli slack = kMilliPerGpu % need;
  for (auto it = shared.From(need); it != shared.end();) {
    const Milli over = it->first % need;
    if (over > slack) {
      it = shared.From(it->first - over + need);
      continue;
    }
    if (try_device(it->second, DeviceFit::kComplements)) return true;
    ++it;
  }
  // 2. An empty device, on the node with the least free GPU that has one
  // (a node with an empty device has at least a whole GPU free).
  const ClusterState::FreeGpuIndex& nodes = placer.state().ByFreeGpu();
  for (auto it = nodes.From(kMilliPerGpu); it != nodes.end(); ++it)
    if (!OutOfBasics(placer, r, it->second) && filter.Accepts(it->second) &&
        placer.CheckUpTo(pod, it->second, DeviceFit::kEmpty, out) == FitFailure::kFits)
      return true;
  // 3. Any started device that still takes the portion, tightest first.
  for (auto it = shared.From(need); it != shared.end(); ++it)
    if (try_device(it->second, DeviceFit::kMixes)) return true;
  return false;
}

bool SpreadRule::DeviceKey(Milli used, Milli, int index, DeviceFit, int64_t* key) const {
  *key = used * 64 + index;
  return true;
}

bool SpreadRule::Find(const Placer& placer, PodId pod, const NodeFilter& filter, Allocation* out) {
  const ClusterState::FreeGpuIndex& index = placer.state().ByFreeGpu();
  const Milli need = placer.MinimumGpuOnNode(pod);
  const PodRequest& r = placer.snapshot().pods[pod].request;
  for (auto it = index.rbegin(); it != index.rend() && it->first >= need; ++it)
    if (!OutOfBasics(placer, r, it->second) && filter.Accepts(it->second) &&
        placer.Check(pod, it->second, out) == FitFailure::kFits)
      return true;
  return false;
}

bool BestFitRule::Find(const Placer& placer, PodId pod, const NodeFilter& filter, Allocation* out) {
  const Snapshot& s = placer.snapshot();
  const ClusterState::FreeGpuIndex& index = placer.state().ByFreeGpu();
  const Milli need = placer.MinimumGpuOnNode(pod);
  const PodRequest& r = s.pods[pod].request;
  double best_score = 0;
  NodeId best = kNone;
  for (auto it = index.From(need); it != index.end(); ++it) {
    NodeId n = it->second;
    if (OutOfBasics(placer, r, n) || !filter.Accepts(n) ||
        placer.Check(pod, n, nullptr) != FitFailure::kFits)
      continue;
    const Node& node = s.nodes[n];
    const NodeFree& free = placer.state().Free(n);
    double score = 0;
    if (node.num_devices > 0)
      score += double(free.gpu - need) / double(node.num_devices * kMilliPerGpu);
    if (node.cpu_milli > 0) score += double(free.cpu_milli - r.cpu_milli) / node.cpu_milli;
    if (best == kNone || score < best_score || (score == best_score && n < best)) {
      best = n;
      best_score = score;
    }
  }
  return best != kNone && placer.Check(pod, best, out) == FitFailure::kFits;
}

bool RandomFitRule::Find(const Placer& placer, PodId pod, const NodeFilter& filter,
                         Allocation* out) {
  // Reservoir sampling: one pass, uniform over the nodes that fit.
  const ClusterState::FreeGpuIndex& index = placer.state().ByFreeGpu();
  const Milli need = placer.MinimumGpuOnNode(pod);
  const PodRequest& r = placer.snapshot().pods[pod].request;
  NodeId chosen = kNone;
  uint64_t seen = 0;
  for (auto it = index.From(need); it != index.end(); ++it) {
    NodeId n = it->second;
    if (OutOfBasics(placer, r, n) || !filter.Accepts(n) ||
        placer.Check(pod, n, nullptr) != FitFailure::kFits)
      continue;
    if (SplitMix64(rng_) % ++seen == 0) chosen = n;
  }
  return chosen != kNone && placer.Check(pod, chosen, out) == FitFailure::kFits;
}

}  // namespace vtenant::sched

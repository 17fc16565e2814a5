#include "scheduler-core/pod_terms.h"

#include <algorithm>
#include <climits>

#include "scheduler-core/placement.h"

namespace vtenant::sched {
namespace {

void Add(std::unordered_map<uint64_t, int32_t>& counts, uint64_t slot, int sign) {
  if ((counts[slot] += sign) == 0) counts.erase(slot);
}

}  // namespace

PodTermCounts::PodTermCounts(const Snapshot& snapshot) : snapshot_(&snapshot) {
  auto learn = [&](const PodTerm& t, bool anti) {
    auto [it, fresh] =
        pair_index_.try_emplace(PairKey(t.key, t.level), static_cast<Pair>(pair_level_.size()));
    if (fresh) {
      pair_level_.push_back(t.level);
      pairs_of_key_[t.key].push_back(it->second);
    }
    std::vector<Pair>& anti_pairs = anti_pairs_of_key_[t.key];
    if (anti && std::find(anti_pairs.begin(), anti_pairs.end(), it->second) == anti_pairs.end())
      anti_pairs.push_back(it->second);
  };
  for (const Pod& p : snapshot.pods) {
    if (!p.extras) continue;
    const PodExtras& pod = *p.extras;
    for (const PodTerm& t : pod.affinity) learn(t, false);
    for (const PodTerm& t : pod.anti_affinity) learn(t, true);
    for (const PreferredTerm& t : pod.preferred) learn({t.key, t.level}, false);
    for (const SpreadTerm& t : pod.spread) learn({t.key, t.level}, false);
  }
  std::erase_if(anti_pairs_of_key_, [](const auto& e) { return e.second.empty(); });
  of_key_total_.assign(pair_level_.size(), 0);
}

std::optional<StringId> PodTermCounts::Domain(NodeId node, StringId level) const {
  const std::vector<Label>& labels = snapshot_->nodes[node].labels;  // sorted by key
  auto it = std::lower_bound(labels.begin(), labels.end(), Label{level, 0});
  if (it == labels.end() || it->key != level) return std::nullopt;
  return it->value;
}

void PodTermCounts::Count(PodId pod_id, NodeId node, int sign) {
  if (pair_level_.empty()) return;
  ++version_;
  const PodExtras& pod = ExtrasOf(snapshot_->pods[pod_id]);
  for (StringId mark : pod.marks) {
    auto pairs = pairs_of_key_.find(mark);
    if (pairs == pairs_of_key_.end()) continue;
    for (Pair pair : pairs->second) {
      const std::optional<StringId> domain = Domain(node, pair_level_[pair]);
      if (!domain) continue;
      Add(of_key_, Slot(pair, *domain), sign);
      of_key_total_[pair] += sign;
    }
  }
  for (const PodTerm& t : pod.anti_affinity)
    if (const std::optional<StringId> domain = Domain(node, t.level))
      Add(repelling_, Slot(PairOf(t), *domain), sign);
}

bool PodTermCounts::Concerns(PodId pod_id) const {
  const PodExtras& pod = ExtrasOf(snapshot_->pods[pod_id]);
  if (!pod.affinity.empty() || !pod.anti_affinity.empty() || !pod.spread.empty()) return true;
  if (anti_pairs_of_key_.empty()) return false;
  for (StringId mark : pod.marks)
    if (anti_pairs_of_key_.contains(mark)) return true;
  return false;
}

TermRefusal PodTermCounts::Refusal(PodId pod_id, NodeId node) const {
  const PodExtras& pod = ExtrasOf(snapshot_->pods[pod_id]);
  for (const PodTerm& t : pod.anti_affinity) {
    const std::optional<StringId> domain = Domain(node, t.level);
    if (domain && Get(of_key_, Slot(PairOf(t), *domain)) > 0) return TermRefusal::kAntiAffinity;
  }
  if (!repelling_.empty())
    for (StringId mark : pod.marks) {
      auto pairs = anti_pairs_of_key_.find(mark);
      if (pairs == anti_pairs_of_key_.end()) continue;
      for (Pair pair : pairs->second) {
        const std::optional<StringId> domain = Domain(node, pair_level_[pair]);
        if (domain && Get(repelling_, Slot(pair, *domain)) > 0)
          return TermRefusal::kExistingAntiAffinity;
      }
    }
  for (size_t c = 0; c < pod.spread.size(); ++c) {
    const std::optional<StringId> domain = Domain(node, pod.spread[c].level);
    if (!domain || !SpreadAllows(pod_id, c, *domain)) return TermRefusal::kTopologySpread;
  }
  if (pod.affinity.empty()) return TermRefusal::kNone;
  // kube-scheduler's rule: while no placed pod is of the key in any
  // domain, a pod of the key itself may start the group anywhere.
  bool any_placed = false;
  for (const PodTerm& t : pod.affinity) any_placed = any_placed || of_key_total_[PairOf(t)] > 0;
  const StringId key = pod.affinity.front().key;
  if (!any_placed && !std::binary_search(pod.marks.begin(), pod.marks.end(), key))
    return TermRefusal::kAffinity;
  for (const PodTerm& t : pod.affinity) {
    const std::optional<StringId> domain = Domain(node, t.level);
    if (!domain) return TermRefusal::kAffinity;
    if (any_placed && Get(of_key_, Slot(PairOf(t), *domain)) == 0) return TermRefusal::kAffinity;
  }
  return TermRefusal::kNone;
}

bool PodTermCounts::SpreadAllows(PodId pod_id, size_t c, StringId domain) const {
  const PodExtras& pod = ExtrasOf(snapshot_->pods[pod_id]);
  const SpreadTerm& t = pod.spread[c];
  const int32_t self = std::binary_search(pod.marks.begin(), pod.marks.end(), t.key) ? 1 : 0;
  const int32_t here = Get(of_key_, Slot(PairOf({t.key, t.level}), domain));
  return here + self - SpreadMinimum(pod_id, c) <= t.max_skew;
}

int32_t PodTermCounts::SpreadMinimum(PodId pod_id, size_t c) const {
  const Pod& pod = snapshot_->pods[pod_id];
  const std::vector<SpreadTerm>& spread = ExtrasOf(pod).spread;
  const SpreadTerm& t = spread[c];
  auto [it, fresh] = spread_memo_.try_emplace((uint64_t{pod_id} << 8) | c);
  SpreadMemo& memo = it->second;
  if (fresh) {
    // kube-scheduler's eligible domains: those of the nodes the pod's node
    // selector and affinity (and, if asked, its tolerations) admit, and
    // that carry every level of its constraints.
    for (NodeId n = 0; n < snapshot_->nodes.size(); ++n) {
      const Node& node = snapshot_->nodes[n];
      if (t.honor_affinity &&
          (!MatchesSelector(node, pod.node_selector) || !MatchesAffinity(node, pod.node_affinity)))
        continue;
      if (t.honor_taints && !ToleratesTaints(node, pod.tolerations)) continue;
      bool every_level = true;
      for (const SpreadTerm& other : spread)
        every_level = every_level && Domain(n, other.level).has_value();
      if (every_level) memo.domains.push_back(*Domain(n, t.level));
    }
    std::sort(memo.domains.begin(), memo.domains.end());
    memo.domains.erase(std::unique(memo.domains.begin(), memo.domains.end()), memo.domains.end());
  }
  if (memo.version != version_) {
    memo.version = version_;
    memo.minimum = 0;
    if (memo.domains.size() >= static_cast<size_t>(t.min_domains)) {
      const Pair pair = PairOf({t.key, t.level});
      memo.minimum = memo.domains.empty() ? 0 : INT32_MAX;
      for (StringId d : memo.domains)
        memo.minimum = std::min(memo.minimum, Get(of_key_, Slot(pair, d)));
    }
  }
  return memo.minimum;
}

int64_t PodTermCounts::Preference(PodId pod_id, NodeId node) const {
  int64_t score = 0;
  for (const PreferredTerm& t : ExtrasOf(snapshot_->pods[pod_id]).preferred)
    if (const std::optional<StringId> domain = Domain(node, t.level))
      score += int64_t{t.weight} * Get(of_key_, Slot(PairOf({t.key, t.level}), *domain));
  return score;
}

}  // namespace vtenant::sched

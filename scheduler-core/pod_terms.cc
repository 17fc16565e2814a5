#include "scheduler-core/pod_terms.h"

#include <algorithm>
#include <climits>

#include "scheduler-core/placement.h"

namespace vtenant::sched {
namespace {

// kube-scheduler's InterPodAffinity argument hardPodAffinityWeight, at its
// default: what a placed pod's required affinity term weighs toward the
// pods it names.
constexpr int32_t kHardPodAffinityWeight = 1;

}  // namespace

PodTermCounts::PodTermCounts(const Snapshot& snapshot) : snapshot_(&snapshot) {
  // The (key, level) pairs, numbered; by key, the pairs of every term of
  // that key, and those of anti-affinity.
  std::unordered_map<uint64_t, Pair> pair_index;
  std::unordered_map<StringId, std::vector<Pair>> pairs_of_key;
  std::unordered_map<StringId, std::vector<Pair>> anti_pairs_of_key;
  auto learn = [&](StringId key, StringId level, bool anti) {
    auto [it, fresh] =
        pair_index.try_emplace(PairKey(key, level), static_cast<Pair>(pairs_.size()));
    if (fresh) {
      pairs_.push_back({.level = LevelOf(level)});
      pairs_of_key[key].push_back(it->second);
    }
    if (!anti) return;
    std::vector<Pair>& anti_pairs = anti_pairs_of_key[key];
    if (std::find(anti_pairs.begin(), anti_pairs.end(), it->second) == anti_pairs.end())
      anti_pairs.push_back(it->second);
  };
  for (const Pod& p : snapshot.pods) {
    if (!p.extras) continue;
    const PodExtras& pod = *p.extras;
    for (const PodTerm& t : pod.affinity) learn(t.key, t.level, false);
    for (const PodTerm& t : pod.anti_affinity) learn(t.key, t.level, true);
    for (const PreferredTerm& t : pod.preferred) learn(t.key, t.level, false);
    for (const SpreadTerm& t : pod.spread) learn(t.key, t.level, false);
    for (const PodTerm& t : pod.together) learn(t.key, t.level, false);
  }
  // Each pod's pairs, looked up once here rather than at every check.
  if (pairs_.empty()) return;
  pairs_of_pod_.assign(snapshot.pods.size(), kNoPairs);
  for (PodId id = 0; id < snapshot.pods.size(); ++id) {
    if (!snapshot.pods[id].extras) continue;
    const PodExtras& pod = *snapshot.pods[id].extras;
    PodPairs pp;
    for (StringId mark : pod.marks) {
      if (auto it = pairs_of_key.find(mark); it != pairs_of_key.end())
        pp.of_marks.insert(pp.of_marks.end(), it->second.begin(), it->second.end());
      if (auto it = anti_pairs_of_key.find(mark); it != anti_pairs_of_key.end())
        pp.repelling_marks.insert(pp.repelling_marks.end(), it->second.begin(), it->second.end());
    }
    auto pair_of = [&](StringId key, StringId level) { return pair_index.at(PairKey(key, level)); };
    for (const PodTerm& t : pod.affinity) pp.affinity.push_back(pair_of(t.key, t.level));
    for (const PodTerm& t : pod.anti_affinity) pp.anti_affinity.push_back(pair_of(t.key, t.level));
    for (const PreferredTerm& t : pod.preferred) pp.preferred.push_back(pair_of(t.key, t.level));
    for (const SpreadTerm& t : pod.spread) pp.spread.push_back(pair_of(t.key, t.level));
    for (const PodTerm& t : pod.together) pp.together.push_back(pair_of(t.key, t.level));
    pairs_of_pod_[id] = static_cast<uint32_t>(pod_pairs_.size());
    pod_pairs_.push_back(std::move(pp));
  }
}

const PodTermCounts::PodPairs& PodTermCounts::PairsOf(PodId pod) const {
  static const PodPairs kNone;
  if (pairs_of_pod_.empty() || pairs_of_pod_[pod] == kNoPairs) return kNone;
  return pod_pairs_[pairs_of_pod_[pod]];
}

uint32_t PodTermCounts::LevelOf(StringId level) {
  auto [it, fresh] = level_index_.try_emplace(level, static_cast<uint32_t>(levels_.size()));
  if (!fresh) return it->second;
  // Each node's domain of the level, numbered densely in the order met.
  Level& l = levels_.emplace_back();
  l.of_node.assign(snapshot_->nodes.size(), kNoDomain);
  std::unordered_map<StringId, int32_t> numbered;
  for (NodeId n = 0; n < snapshot_->nodes.size(); ++n) {
    const StringId value = LabelValue(snapshot_->nodes[n], level);
    if (value == kNoString) continue;
    l.of_node[n] = numbered.try_emplace(value, static_cast<int32_t>(numbered.size())).first->second;
  }
  l.domains = static_cast<int32_t>(numbered.size());
  return it->second;
}

void PodTermCounts::Add(std::vector<int32_t>& counts, const PairState& pair, int32_t domain,
                        int32_t amount) const {
  if (counts.empty()) counts.assign(levels_[pair.level].domains, 0);
  counts[domain] += amount;
}

void PodTermCounts::Count(PodId pod_id, NodeId node, int sign) {
  if (pairs_.empty()) return;
  ++version_;
  const PodPairs& pp = PairsOf(pod_id);
  for (Pair p : pp.of_marks) {
    PairState& pair = pairs_[p];
    const int32_t domain = DomainOf(node, pair.level);
    if (domain == kNoDomain) continue;
    Add(pair.of_key, pair, domain, sign);
    pair.of_key_total += sign;
  }
  for (Pair p : pp.anti_affinity) {
    PairState& pair = pairs_[p];
    const int32_t domain = DomainOf(node, pair.level);
    if (domain == kNoDomain) continue;
    Add(pair.repelling, pair, domain, sign);
    repelling_total_ += sign;
  }
  // What this pod's affinity terms weigh for the pods they name, by
  // kube-scheduler's InterPodAffinity score (Preference).
  const std::vector<PreferredTerm>& preferred = ExtrasOf(snapshot_->pods[pod_id]).preferred;
  auto attract = [&](Pair p, int32_t weight) {
    PairState& pair = pairs_[p];
    const int32_t domain = DomainOf(node, pair.level);
    if (domain == kNoDomain) return;
    Add(pair.attracting, pair, domain, sign * weight);
    attracting_terms_ += sign;
  };
  for (size_t i = 0; i < pp.preferred.size(); ++i) attract(pp.preferred[i], preferred[i].weight);
  for (Pair p : pp.affinity) attract(p, kHardPodAffinityWeight);
}

bool PodTermCounts::Concerns(PodId pod_id) const {
  const PodPairs& pp = PairsOf(pod_id);
  return !pp.affinity.empty() || !pp.anti_affinity.empty() || !pp.spread.empty() ||
         !pp.together.empty() || !pp.repelling_marks.empty();
}

TermRefusal PodTermCounts::Refusal(PodId pod_id, NodeId node) const {
  const PodPairs& pp = PairsOf(pod_id);
  for (Pair p : pp.anti_affinity) {
    const PairState& pair = pairs_[p];
    if (Get(pair.of_key, DomainOf(node, pair.level)) > 0) return TermRefusal::kAntiAffinity;
  }
  if (repelling_total_ > 0)
    for (Pair p : pp.repelling_marks) {
      const PairState& pair = pairs_[p];
      if (Get(pair.repelling, DomainOf(node, pair.level)) > 0)
        return TermRefusal::kExistingAntiAffinity;
    }
  for (size_t c = 0; c < pp.spread.size(); ++c)
    if (!SpreadAllows(pod_id, c, node)) return TermRefusal::kTopologySpread;
  for (Pair p : pp.together) {
    const PairState& pair = pairs_[p];
    const int32_t domain = DomainOf(node, pair.level);
    if (domain == kNoDomain || (pair.of_key_total > 0 && Get(pair.of_key, domain) == 0))
      return TermRefusal::kTogether;
  }
  if (pp.affinity.empty()) return TermRefusal::kNone;
  // kube-scheduler's rule: while no placed pod is of the key in any
  // domain, a pod of the key itself may start the group anywhere.
  bool any_placed = false;
  for (Pair p : pp.affinity) any_placed = any_placed || pairs_[p].of_key_total > 0;
  const PodExtras& pod = ExtrasOf(snapshot_->pods[pod_id]);
  const StringId key = pod.affinity.front().key;
  if (!any_placed && !std::binary_search(pod.marks.begin(), pod.marks.end(), key))
    return TermRefusal::kAffinity;
  for (Pair p : pp.affinity) {
    const PairState& pair = pairs_[p];
    const int32_t domain = DomainOf(node, pair.level);
    if (domain == kNoDomain) return TermRefusal::kAffinity;
    if (any_placed && Get(pair.of_key, domain) == 0) return TermRefusal::kAffinity;
  }
  return TermRefusal::kNone;
}

bool PodTermCounts::SpreadAllows(PodId pod_id, size_t c, NodeId node) const {
  const PodExtras& pod = ExtrasOf(snapshot_->pods[pod_id]);
  const SpreadTerm& t = pod.spread[c];
  const PairState& pair = pairs_[PairsOf(pod_id).spread[c]];
  const int32_t domain = DomainOf(node, pair.level);
  if (domain == kNoDomain) return false;  // a node without the label is refused
  const int32_t self = std::binary_search(pod.marks.begin(), pod.marks.end(), t.key) ? 1 : 0;
  return Get(pair.of_key, domain) + self - SpreadMinimum(pod_id, c) <= t.max_skew;
}

int32_t PodTermCounts::SpreadMinimum(PodId pod_id, size_t c) const {
  const Pod& pod = snapshot_->pods[pod_id];
  const std::vector<SpreadTerm>& spread = ExtrasOf(pod).spread;
  const SpreadTerm& t = spread[c];
  const PodPairs& pp = PairsOf(pod_id);
  const PairState& pair = pairs_[pp.spread[c]];
  // Pods of one shape have the same eligible domains: keyed by shape where
  // the pod has one the snapshot numbered, else by the pod itself.
  const bool shaped = pod.shape != kNone && pod.shape < ShapeId(snapshot_->num_shapes);
  const uint64_t memo_key =
      (uint64_t{shaped ? pod.shape : pod_id} << 8 | c) << 1 | (shaped ? 1 : 0);
  auto [it, fresh] = spread_memo_.try_emplace(memo_key);
  SpreadMemo& memo = it->second;
  if (fresh) {
    // kube-scheduler's eligible domains: those of the nodes the pod's node
    // selector and affinity (and, if asked, its tolerations) admit, and
    // that carry every level of its constraints.
    std::vector<bool> seen(levels_[pair.level].domains, false);
    for (NodeId n = 0; n < snapshot_->nodes.size(); ++n) {
      const Node& node = snapshot_->nodes[n];
      if (t.honor_affinity &&
          (!MatchesSelector(node, pod.node_selector) || !MatchesAffinity(node, pod.node_affinity)))
        continue;
      if (t.honor_taints && !ToleratesTaints(node, pod.tolerations)) continue;
      bool every_level = true;
      for (Pair other : pp.spread)
        every_level = every_level && DomainOf(n, pairs_[other].level) != kNoDomain;
      const int32_t domain = DomainOf(n, pair.level);
      if (every_level && !seen[domain]) {
        seen[domain] = true;
        memo.domains.push_back(domain);
      }
    }
  }
  if (memo.version != version_) {
    memo.version = version_;
    memo.minimum = 0;
    if (memo.domains.size() >= static_cast<size_t>(t.min_domains)) {
      memo.minimum = memo.domains.empty() ? 0 : INT32_MAX;
      for (int32_t d : memo.domains) memo.minimum = std::min(memo.minimum, Get(pair.of_key, d));
    }
  }
  return memo.minimum;
}

bool PodTermCounts::Ranks(PodId pod_id) const {
  const PodPairs& pp = PairsOf(pod_id);
  if (!pp.preferred.empty()) return true;
  if (attracting_terms_ == 0) return false;
  return std::any_of(pp.of_marks.begin(), pp.of_marks.end(),
                     [&](Pair p) { return !pairs_[p].attracting.empty(); });
}

void PodTermCounts::Preferences(PodId pod_id, std::vector<int64_t>* score) const {
  score->assign(snapshot_->nodes.size(), 0);
  // Pair by pair over the nodes, skipping the pairs nothing is counted in.
  auto add = [&](Pair p, const std::vector<int32_t> PairState::*counts, int64_t weight) {
    const PairState& pair = pairs_[p];
    const std::vector<int32_t>& by_domain = pair.*counts;
    if (by_domain.empty()) return;
    const std::vector<int32_t>& of_node = levels_[pair.level].of_node;
    for (NodeId n = 0; n < of_node.size(); ++n)
      if (of_node[n] != kNoDomain) (*score)[n] += weight * by_domain[of_node[n]];
  };
  const std::vector<PreferredTerm>& preferred = ExtrasOf(snapshot_->pods[pod_id]).preferred;
  const PodPairs& pp = PairsOf(pod_id);
  for (size_t i = 0; i < preferred.size(); ++i)
    add(pp.preferred[i], &PairState::of_key, preferred[i].weight);
  if (attracting_terms_ > 0)
    for (Pair p : pp.of_marks) add(p, &PairState::attracting, 1);
}

}  // namespace vtenant::sched

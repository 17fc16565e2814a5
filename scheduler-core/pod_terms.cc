#include "scheduler-core/pod_terms.h"

#include <algorithm>

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
  for (const Pod& pod : snapshot.pods) {
    for (const PodTerm& t : pod.affinity) learn(t, false);
    for (const PodTerm& t : pod.anti_affinity) learn(t, true);
    for (const PreferredTerm& t : pod.preferred) learn({t.key, t.level}, false);
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
  const Pod& pod = snapshot_->pods[pod_id];
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
  const Pod& pod = snapshot_->pods[pod_id];
  if (!pod.affinity.empty() || !pod.anti_affinity.empty()) return true;
  if (anti_pairs_of_key_.empty()) return false;
  for (StringId mark : pod.marks)
    if (anti_pairs_of_key_.contains(mark)) return true;
  return false;
}

TermRefusal PodTermCounts::Refusal(PodId pod_id, NodeId node) const {
  const Pod& pod = snapshot_->pods[pod_id];
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

int64_t PodTermCounts::Preference(PodId pod_id, NodeId node) const {
  int64_t score = 0;
  for (const PreferredTerm& t : snapshot_->pods[pod_id].preferred)
    if (const std::optional<StringId> domain = Domain(node, t.level))
      score += int64_t{t.weight} * Get(of_key_, Slot(PairOf({t.key, t.level}), *domain));
  return score;
}

}  // namespace vtenant::sched

#include "scheduler/pod_sets.h"

namespace vtenant::scheduler {

void PodSets::Change(const PodSet& set, int by) {
  auto [it, fresh] = sets_.try_emplace(set.key, Known{set, 0});
  if (fresh) {
    ++version_;
    if (set.ReadsNamespaceLabels()) ++namespace_selecting_;
  }
  if ((it->second.users += by) <= 0) {
    if (it->second.set.ReadsNamespaceLabels()) --namespace_selecting_;
    sets_.erase(it);
    ++version_;
  }
}

void PodSets::Use(const InterPodTerms& terms) {
  if (!terms.affinity_levels.empty()) Change(terms.affinity, +1);
  for (const auto& [set, level] : terms.anti_affinity) Change(set, +1);
  for (const InterPodTerms::Preferred& t : terms.preferred) Change(t.set, +1);
  for (const InterPodTerms::Spread& t : terms.spread) Change(t.set, +1);
}

void PodSets::Release(const InterPodTerms& terms) {
  if (!terms.affinity_levels.empty()) Change(terms.affinity, -1);
  for (const auto& [set, level] : terms.anti_affinity) Change(set, -1);
  for (const InterPodTerms::Preferred& t : terms.preferred) Change(t.set, -1);
  for (const InterPodTerms::Spread& t : terms.spread) Change(t.set, -1);
}

std::vector<std::string> PodSets::MarksOf(std::string_view ns, const kube::Labels& labels,
                                          const kube::Labels& ns_labels) const {
  std::vector<std::string> marks;
  for (const auto& [key, known] : sets_)
    if (known.set.Holds(ns, labels, ns_labels)) marks.push_back(key);
  return marks;
}

}  // namespace vtenant::scheduler

// InterPodTerms: a pod's pod affinity and anti-affinity and its topology
// spread, read as sets of pods the core counts per topology domain
// (sched::PodTerm, PreferredTerm, SpreadTerm).
//
// Each term of spec.affinity.podAffinity / podAntiAffinity
// .requiredDuringSchedulingIgnoredDuringExecution selects pods by its
// labelSelector (with the pod's values of its matchLabelKeys and
// mismatchLabelKeys merged in, as the API server does) in the namespaces
// it reaches: its `namespaces` and those whose labels its namespaceSelector
// matches; with neither, the pod's own; `namespaceSelector: {}` all of
// them. A term without a labelSelector selects no pod.
//
// As kube-scheduler counts them, a pod's affinity terms are one set: the
// pods that every term selects; each anti-affinity term is a set of its own.
// PodSets (pod_sets.h) works out which pods are in which set.
//
// The preferred terms (preferredDuringSchedulingIgnoredDuringExecution)
// are sets of their own too, with their weight (negative for
// anti-affinity).
//
// A required topology spread constraint (spec.topologySpreadConstraints
// with whenUnsatisfiable DoNotSchedule) is a set too: the pods its
// labelSelector (with matchLabelKeys merged) selects in the pod's own
// namespace, with its maxSkew, minDomains and node policies. Those of
// ScheduleAnyway, which only score nodes, are not read.
//
// A namespaceSelector is matched, as kube-scheduler matches it, against the
// labels of the namespace of the pod looked at, as the scheduler last saw
// them (a namespace it has not seen has none). The syncer never writes
// such a term: a tenant's are scoped to its host namespace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/label_selector.h"
#include "kube/object.h"

namespace vtenant::scheduler {

// The pods one term selects.
struct PodSelector {
  bool selects_none = false;  // a term without a labelSelector
  kube::LabelSelector labels;
  bool every_namespace = false;
  std::vector<std::string> namespaces;  // sorted; read when !every_namespace
  // A namespaceSelector with terms: the namespaces whose labels it
  // matches, besides `namespaces`.
  std::optional<kube::LabelSelector> namespace_labels;

  // Whether it selects a pod of namespace `ns` with `pod_labels`, where
  // `ns` has the labels `ns_labels`.
  bool Selects(std::string_view ns, const kube::Labels& pod_labels,
               const kube::Labels& ns_labels) const;
  bool operator==(const PodSelector&) const = default;
};

// The pods every one of `all` selects, and the name the core counts them by.
struct PodSet {
  std::string key;
  std::vector<PodSelector> all;

  // Whether every selector selects the pod (PodSelector::Selects); the
  // namespace's labels are read only by a namespaceSelector with terms.
  bool Holds(std::string_view ns, const kube::Labels& pod_labels,
             const kube::Labels& ns_labels = {}) const;
  // Whether Holds reads the namespace's labels.
  bool ReadsNamespaceLabels() const;
  bool operator==(const PodSet&) const = default;
};

struct InterPodTerms {
  // Required pod affinity: a pod of `affinity` in the node's domain of
  // each level. No levels: none.
  PodSet affinity;
  std::vector<std::string> affinity_levels;
  // Required pod anti-affinity: (set, level) for each term.
  std::vector<std::pair<PodSet, std::string>> anti_affinity;
  struct Preferred {
    PodSet set;
    std::string level;
    int32_t weight = 0;  // 1 to 100; negative for anti-affinity
    bool operator==(const Preferred&) const = default;
  };
  std::vector<Preferred> preferred;
  struct Spread {
    PodSet set;
    std::string level;
    int32_t max_skew = 1;
    int32_t min_domains = 1;
    bool honor_affinity = true;  // nodeAffinityPolicy Honor (the default)
    bool honor_taints = false;   // nodeTaintsPolicy Honor (default Ignore)
    bool operator==(const Spread&) const = default;
  };
  std::vector<Spread> spread;

  bool empty() const {
    return affinity_levels.empty() && anti_affinity.empty() && preferred.empty() && spread.empty();
  }
  bool operator==(const InterPodTerms&) const = default;
};

// Reads `pod`'s terms as above.
InterPodTerms ReadInterPodTerms(const rapidjson::Value& pod);

}  // namespace vtenant::scheduler

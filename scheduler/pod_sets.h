// PodSets: the sets of pods the cluster's inter-pod terms name
// (pod_terms.h), and which of them a pod is in: the marks the core counts
// it by (sched::PodExtras::marks).
//
// A set is known while a pod's terms name it. A pod's marks depend on every
// set known, so they are worked out again only when the sets change (a set
// named for the first time, or no longer): version() says when.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kube/label_selector.h"
#include "scheduler/pod_terms.h"

namespace vtenant::scheduler {

class PodSets {
 public:
  // One more pod's terms name their sets (Use), or one fewer (Release:
  // the same terms as used before).
  void Use(const InterPodTerms& terms);
  void Release(const InterPodTerms& terms);

  // The keys of the known sets that hold a pod of namespace `ns` with
  // `labels`, where `ns` has `ns_labels`; sorted.
  std::vector<std::string> MarksOf(std::string_view ns, const kube::Labels& labels,
                                   const kube::Labels& ns_labels) const;

  // Changes whenever the known sets do; never 0.
  uint64_t version() const { return version_; }
  bool empty() const { return sets_.empty(); }
  // Whether a known set reads namespaces' labels (a namespaceSelector with
  // terms): then a pod's marks change with its namespace's labels too.
  bool ReadNamespaceLabels() const { return namespace_selecting_ > 0; }

 private:
  void Change(const PodSet& set, int by);

  struct Known {
    PodSet set;
    int32_t users = 0;
  };
  std::map<std::string, Known> sets_;
  uint64_t version_ = 1;
  int32_t namespace_selecting_ = 0;  // known sets that read namespaces' labels
};

}  // namespace vtenant::scheduler

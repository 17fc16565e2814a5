// NodeAffinity: a pod's requiredDuringSchedulingIgnoredDuringExecution node
// affinity, in full, as kube-scheduler reads it: nodeSelectorTerms are ORed;
// within a term every matchExpressions and matchFields requirement must hold
// (ANDed); a term with neither matches no node. Operators In, NotIn (also
// true when the label is absent), Exists, DoesNotExist, Gt and Lt (the label
// value and the one value compared as integers; a value that is not one
// never matches); matchFields on metadata.name with In and NotIn.
//
// The scheduler core models only one conjunction of "key In (values)". A
// pod's affinity of that form goes to the core as it is (Simple()); any
// other is evaluated here against each node, and the core is told the
// names of the nodes that match (cluster_view.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/object.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

struct NodeSelectorRequirement {
  enum class Op { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
  std::string key;
  Op op = Op::kIn;
  std::vector<std::string> values;
  bool operator==(const NodeSelectorRequirement&) const = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;  // on labels
  std::vector<NodeSelectorRequirement> match_fields;       // key metadata.name
  bool operator==(const NodeSelectorTerm&) const = default;
};

struct NodeAffinity {
  std::vector<NodeSelectorTerm> terms;  // ORed; empty: no constraint

  bool empty() const { return terms.empty(); }
  // One term of In expressions only: what the core models itself.
  bool Simple() const;
  // Whether the node `name` with `labels` satisfies the affinity.
  bool Matches(std::string_view name, const sched::LabelPairs& labels) const;
  // A key equal for equal affinities (to evaluate each distinct one once).
  std::string Key() const;
  bool operator==(const NodeAffinity&) const = default;
};

// The required node affinity of `pod` (empty when it has none).
// InvalidArgument naming the term and field on what the API server would
// have refused (an unknown operator, Gt with two values, a field other
// than metadata.name).
Result<NodeAffinity> ParseRequiredNodeAffinity(const rapidjson::Value& pod);

// A NodeSelector ({nodeSelectorTerms: [...]}, as a pod's required affinity
// or a PersistentVolume's spec.nodeAffinity.required has it), the errors
// naming `what`; empty when it has no terms.
Result<NodeAffinity> ParseNodeSelector(const rapidjson::Value& selector, std::string_view what);

// The nodes both `a` and `b` admit: each term of one ANDed with each of the
// other (an empty one admits every node).
NodeAffinity Both(const NodeAffinity& a, const NodeAffinity& b);

// The nodes either admits: the terms of both (an empty one admits every
// node, and so does the answer).
NodeAffinity Either(const NodeAffinity& a, const NodeAffinity& b);

}  // namespace vtenant::scheduler

// PodTermCounts: where the placed pods stand for the inter-pod terms
// (model.h's PodTerm, PreferredTerm and SpreadTerm), kept in step as pods
// are placed and removed, so a fit check or a node's score asks a few
// counters instead of walking the pods.
//
// It counts, for each (key, level) some pod's term or spread constraint
// names, the placed pods of that key per domain of that level, and the
// placed pods holding an anti-affinity term per domain. A pod without
// extras costs nothing, and a cluster without terms nothing at all.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "scheduler-core/model.h"

namespace vtenant::sched {

// Which part of the terms refuses a node, in kube-scheduler's three reasons.
enum class TermRefusal : uint8_t {
  kNone,
  kAffinity,              // the pod's required pod affinity does not match
  kAntiAffinity,          // the pod's required pod anti-affinity does not match
  kExistingAntiAffinity,  // a placed pod's anti-affinity keeps this pod out
  kTopologySpread,        // a topology spread constraint would be broken
  kTogether,              // not where the pods it must be with are
};

class PodTermCounts {
 public:
  // Learns the (key, level) pairs from every pod's terms and spread
  // constraints, placed or not; counts nothing yet. `snapshot` must
  // outlive it.
  explicit PodTermCounts(const Snapshot& snapshot);

  // Counts `pod` as placed on `node` (sign +1) or taken off it (-1).
  void Count(PodId pod, NodeId node, int sign);

  // Whether `pod`'s place is subject to the terms at all: it has terms or
  // spread constraints, or it is of a key some pod's anti-affinity names.
  bool Concerns(PodId pod) const;

  // Why the terms keep `pod` off `node`, kNone when they do not.
  TermRefusal Refusal(PodId pod, NodeId node) const;

  // Whether any node may score above another for `pod`: it has preferred
  // terms, or a placed pod's affinity terms name a set it is in.
  bool Ranks(PodId pod) const;

  // Every node's score for `pod` (by NodeId, into `score`, resized),
  // kube-scheduler's InterPodAffinity score: each of the pod's preferred
  // terms' weight for each placed pod of its key in the node's domain, and,
  // the other way round, the weight of each placed pod's preferred terms
  // (1 for a required affinity term, the default hardPodAffinityWeight)
  // that name a set the pod is in, where that pod's domain is the node's.
  // Anti-affinity weighs negative.
  void Preferences(PodId pod, std::vector<int64_t>* score) const;

 private:
  using Pair = uint32_t;  // a dense index of a (key, level)
  static constexpr int32_t kNoDomain = -1;

  // A level's domains, numbered densely: each node's (kNoDomain without
  // the label), and how many there are.
  struct Level {
    std::vector<int32_t> of_node;
    int32_t domains = 0;
  };
  // A (key, level)'s counts, by domain; empty until first counted.
  struct PairState {
    uint32_t level = 0;              // into levels_
    std::vector<int32_t> of_key;     // placed pods of the key
    std::vector<int32_t> repelling;  // placed pods holding an anti-affinity term of it
    // The placed pods' affinity terms of it, weighed as Preference says.
    std::vector<int32_t> attracting;
    int32_t of_key_total = 0;  // placed pods of the key on nodes with the label
  };

  // A pod's pairs, in the order of its terms: of the sets it is in, of
  // the anti-affinity terms that name those sets, and of its own terms.
  struct PodPairs {
    std::vector<Pair> of_marks;
    std::vector<Pair> repelling_marks;
    std::vector<Pair> affinity, anti_affinity, preferred, spread, together;
  };
  static constexpr uint32_t kNoPairs = UINT32_MAX;
  const PodPairs& PairsOf(PodId pod) const;

  // The index of `level` in levels_, numbering its domains the first time.
  uint32_t LevelOf(StringId level);
  int32_t DomainOf(NodeId node, uint32_t level) const { return levels_[level].of_node[node]; }
  static uint64_t PairKey(StringId key, StringId level) { return (uint64_t{key} << 32) | level; }
  static int32_t Get(const std::vector<int32_t>& counts, int32_t domain) {
    return domain == kNoDomain || counts.empty() ? 0 : counts[domain];
  }
  void Add(std::vector<int32_t>& counts, const PairState& pair, int32_t domain,
           int32_t amount) const;
  // Whether spread constraint `c` of `pod` lets it go to `node`.
  bool SpreadAllows(PodId pod, size_t c, NodeId node) const;
  // The placed pods of constraint `c`'s key in the emptiest of `pod`'s
  // eligible domains for it (0 when fewer than its min_domains).
  int32_t SpreadMinimum(PodId pod, size_t c) const;

  const Snapshot* snapshot_;
  std::vector<Level> levels_;
  std::unordered_map<StringId, uint32_t> level_index_;
  std::vector<PairState> pairs_;
  int64_t repelling_total_ = 0;   // placed anti-affinity terms, over all pairs
  int64_t attracting_terms_ = 0;  // placed affinity terms (Preference's), over all pairs
  // By pod: the index of its PodPairs, kNoPairs for a pod without extras
  // (empty when no pod has terms).
  std::vector<uint32_t> pairs_of_pod_;
  std::vector<PodPairs> pod_pairs_;
  // Counts changes, so that a spread minimum is worked out once per change.
  uint64_t version_ = 0;
  // By (shape or pod, constraint): the eligible domains (they do not
  // change within a cycle), and the minimum with the version it was taken
  // at.
  struct SpreadMemo {
    std::vector<int32_t> domains;
    uint64_t version = UINT64_MAX;
    int32_t minimum = 0;
  };
  mutable std::unordered_map<uint64_t, SpreadMemo> spread_memo_;
};

}  // namespace vtenant::sched

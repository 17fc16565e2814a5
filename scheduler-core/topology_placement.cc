#include "scheduler-core/topology_placement.h"

#include <algorithm>
#include <map>
#include <vector>

namespace vtenant::sched {
namespace {

// A node of a group's sub-group tree.
struct TreeNode {
  enum Kind : uint8_t { kGroup, kSet, kLeaf };
  Kind kind = kGroup;
  int32_t index = -1;  // into the group's subgroup_sets (kSet) or subgroups (kLeaf)
};

// One PlaceWithinTopology call: the domains given so far are `pins_`, one
// per constrained node on the way down.
class TopologyWalk {
 public:
  TopologyWalk(Session& session, GroupId group, JobOutcome* why)
      : session_(session),
        group_(session.snapshot.groups[group]),
        why_(why),
        tries_left_(session.options.topology_max_domain_tries) {}

  // Places `pods`, all of them in `node`'s subtree, within the node's
  // constraint and those pinned above it. May leave some placed on failure.
  bool PlaceNode(TreeNode node, const std::vector<PodId>& pods);

 private:
  const TopologyConstraint& ConstraintOf(TreeNode node) const {
    switch (node.kind) {
      case TreeNode::kGroup:
        return group_.topology;
      case TreeNode::kSet:
        return group_.subgroup_sets[node.index].topology;
      case TreeNode::kLeaf:
        break;
    }
    return group_.subgroups[node.index].topology;
  }

  // Whether `pod` (of the group) is in `node`'s subtree.
  bool Contains(TreeNode node, PodId pod) const {
    const int32_t leaf = session_.snapshot.pods[pod].subgroup;
    if (node.kind == TreeNode::kGroup) return true;
    if (leaf < 0) return false;
    if (node.kind == TreeNode::kLeaf) return leaf == node.index;
    for (int32_t set = group_.subgroups[leaf].parent; set != kNoParent;
         set = group_.subgroup_sets[set].parent)
      if (set == node.index) return true;
    return false;
  }

  // PlaceChildren within each candidate domain of `level` with free GPU for
  // `need` (what the pods ask for) in turn, keeping the first that takes
  // every pod.
  bool TryDomains(TreeNode node, const std::vector<PodId>& pods, StringId level, Milli need);
  // PlaceChildren within the pins as they are, or nothing placed.
  bool PlaceOrRollBack(TreeNode node, const std::vector<PodId>& pods);
  // Places the node's children in turn, each its own pods; a leaf places
  // its pods one by one within the pins.
  bool PlaceChildren(TreeNode node, const std::vector<PodId>& pods);
  bool PlacePods(const std::vector<PodId>& pods);

  Milli GpuAsked(const std::vector<PodId>& pods) const {
    Milli gpu = 0;
    for (PodId p : pods) gpu += session_.estimated[p][kGpu];
    return gpu;
  }
  // The domains of `domain_of` with free GPU for `need` within the pins
  // (and among `held`, when given), in the policy's order.
  std::vector<uint32_t> Candidates(const std::vector<uint32_t>& domain_of, Milli need,
                                   const std::vector<uint32_t>* held) const;
  // The domains of `domain_of` that hold a placed pod of `node`'s subtree.
  std::vector<uint32_t> HeldDomains(TreeNode node, const std::vector<uint32_t>& domain_of) const;

  Session& session_;
  const PodGroup& group_;
  JobOutcome* why_;
  int tries_left_;  // domains this walk may still try (Options::topology_max_domain_tries)
  std::vector<DomainPin> pins_;
};

bool TopologyWalk::PlaceNode(TreeNode node, const std::vector<PodId>& pods) {
  if (pods.empty()) return true;
  const TopologyConstraint& c = ConstraintOf(node);
  if (!c.empty() && tries_left_ <= 0) return false;
  const Milli need = c.empty() ? 0 : GpuAsked(pods);
  if (c.required_level == kNoString) {
    if (c.preferred_level != kNoString && TryDomains(node, pods, c.preferred_level, need))
      return true;
    return PlaceChildren(node, pods);
  }
  const std::vector<uint32_t>& required_of = session_.DomainsOf(c.required_level);
  const std::vector<uint32_t> held = HeldDomains(node, required_of);
  const std::vector<uint32_t> domains =
      Candidates(required_of, need, held.empty() ? nullptr : &held);
  // The narrower domains first, in all of them, as KAI orders its domains
  // deepest level first; then each required domain as a whole.
  for (bool whole : {false, true}) {
    if (!whole && c.preferred_level == kNoString) continue;
    for (uint32_t domain : domains) {
      pins_.push_back({&required_of, domain});
      const bool placed =
          whole ? PlaceOrRollBack(node, pods) : TryDomains(node, pods, c.preferred_level, need);
      pins_.pop_back();
      if (placed) return true;
    }
  }
  // A deeper level that found no room says more; a pod that found no node
  // within this domain is this level's failure, not the cluster's.
  if (why_->block != JobBlock::kTopology) {
    *why_ = {};
    why_->block = JobBlock::kTopology;
    why_->level = c.required_level;
    why_->needed = static_cast<int32_t>(pods.size());
    why_->failing_pod = pods.front();
  }
  return false;
}

bool TopologyWalk::TryDomains(TreeNode node, const std::vector<PodId>& pods, StringId level,
                              Milli need) {
  const std::vector<uint32_t>& domain_of = session_.DomainsOf(level);
  for (uint32_t domain : Candidates(domain_of, need, nullptr)) {
    pins_.push_back({&domain_of, domain});
    const bool placed = PlaceOrRollBack(node, pods);
    pins_.pop_back();
    if (placed) return true;
  }
  return false;
}

bool TopologyWalk::PlaceOrRollBack(TreeNode node, const std::vector<PodId>& pods) {
  if (tries_left_ <= 0) return false;
  --tries_left_;
  const Statement::Checkpoint mark = session_.statement.Mark();
  if (PlaceChildren(node, pods)) return true;
  session_.statement.Rollback(mark);
  return false;
}

bool TopologyWalk::PlaceChildren(TreeNode node, const std::vector<PodId>& pods) {
  if (node.kind == TreeNode::kLeaf) return PlacePods(pods);
  const int32_t self = node.kind == TreeNode::kSet ? node.index : kNoParent;
  // The pods by the child they are under, in one pass (a segmented group
  // has thousands of children): sets first, then leaves, each in spec
  // order, then pods of the group in no sub-group; each child's in the
  // order given.
  const int32_t sets = static_cast<int32_t>(group_.subgroup_sets.size());
  const int32_t in_no_sub_group = sets + static_cast<int32_t>(group_.subgroups.size());
  std::vector<std::pair<int32_t, PodId>> by_child;
  by_child.reserve(pods.size());
  for (PodId p : pods) {
    const int32_t leaf = session_.snapshot.pods[p].subgroup;
    int32_t child = leaf < 0 ? in_no_sub_group : sets + leaf;
    for (int32_t up = leaf < 0 ? self : group_.subgroups[leaf].parent; up != self;
         up = group_.subgroup_sets[up].parent)
      child = up;
    by_child.emplace_back(child, p);
  }
  std::stable_sort(by_child.begin(), by_child.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<PodId> theirs;
  for (size_t i = 0; i < by_child.size();) {
    const int32_t child = by_child[i].first;
    theirs.clear();
    for (; i < by_child.size() && by_child[i].first == child; ++i)
      theirs.push_back(by_child[i].second);
    const bool placed = child == in_no_sub_group ? PlacePods(theirs)
                        : child < sets           ? PlaceNode({TreeNode::kSet, child}, theirs)
                                       : PlaceNode({TreeNode::kLeaf, child - sets}, theirs);
    if (!placed) return false;
  }
  return true;
}

bool TopologyWalk::PlacePods(const std::vector<PodId>& pods) {
  const NodeFilter filter{pins_};
  for (size_t i = 0; i < pods.size(); ++i) {
    Allocation where;
    if (session_.placer.Find(pods[i], filter, &where)) {
      session_.statement.Place(pods[i], where);
      continue;
    }
    *why_ = {};
    why_->block = i == 0 ? JobBlock::kNoNode : JobBlock::kGangPartial;
    why_->failing_pod = pods[i];
    why_->placed_before_failure = static_cast<int32_t>(i);
    why_->needed = static_cast<int32_t>(pods.size());
    return false;
  }
  return true;
}

std::vector<uint32_t> TopologyWalk::Candidates(const std::vector<uint32_t>& domain_of, Milli need,
                                               const std::vector<uint32_t>* held) const {
  const NodeFilter filter{pins_};
  std::map<uint32_t, Milli> free;
  for (NodeId n = 0; n < domain_of.size(); ++n) {
    const uint32_t domain = domain_of[n];
    if (domain == kNone || !session_.snapshot.nodes[n].schedulable || !filter.Accepts(n)) continue;
    if (held != nullptr && std::find(held->begin(), held->end(), domain) == held->end()) continue;
    free[domain] += session_.state.Free(n).gpu;
  }
  std::vector<std::pair<uint32_t, Milli>> ranked;
  for (const auto& [domain, gpu] : free)
    if (gpu >= need) ranked.emplace_back(domain, gpu);
  // Binpack: the fullest domain that could hold the pods; spread: the emptiest.
  const bool spread = session_.options.policy == PlacementPolicy::kSpread;
  std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
    return spread ? a.second > b.second : a.second < b.second;
  });
  std::vector<uint32_t> domains;
  domains.reserve(ranked.size());
  for (const auto& [domain, gpu] : ranked) domains.push_back(domain);
  return domains;
}

std::vector<uint32_t> TopologyWalk::HeldDomains(TreeNode node,
                                                const std::vector<uint32_t>& domain_of) const {
  std::vector<uint32_t> held;
  for (PodId p : group_.pods) {
    if (!session_.state.IsPlaced(p) || !Contains(node, p)) continue;
    const uint32_t domain = domain_of[session_.state.AllocationOf(p).node];
    if (domain != kNone && std::find(held.begin(), held.end(), domain) == held.end())
      held.push_back(domain);
  }
  return held;
}

}  // namespace

bool PlaceWithinTopology(Session& session, GroupId group, std::span<const PodId> pods,
                         JobOutcome* why) {
  const Statement::Checkpoint mark = session.statement.Mark();
  TopologyWalk walk(session, group, why);
  *why = {};
  if (walk.PlaceNode({TreeNode::kGroup}, std::vector<PodId>(pods.begin(), pods.end()))) {
    *why = {};
    return true;
  }
  session.statement.Rollback(mark);
  return false;
}

}  // namespace vtenant::sched

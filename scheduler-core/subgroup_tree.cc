#include "scheduler-core/subgroup_tree.h"

#include <algorithm>

namespace vtenant::sched {
namespace {

// Per node (each set, then the group itself at index sets.size()): how many
// direct children it has and how many of them are satisfied.
struct NodeCounts {
  std::vector<int32_t> children;
  std::vector<int32_t> met;
};

size_t Slot(const SubGroupTree& t, int32_t parent) {
  return parent == kNoParent ? t.sets.size() : static_cast<size_t>(parent);
}

int32_t Needed(const SubGroupTree& t, const NodeCounts& c, size_t node) {
  const int32_t min = node == t.sets.size() ? t.min_sub_group : t.sets[node].min_sub_group;
  return min == kAllChildren ? c.children[node] : min;
}

// Counts bottom up: leaves first, then sets deepest first, so each set is
// settled before its parent counts it. Assumes Check() holds.
NodeCounts Count(const SubGroupTree& t, std::span<const int32_t> placed) {
  const size_t top = t.sets.size();
  NodeCounts c{std::vector<int32_t>(top + 1, 0), std::vector<int32_t>(top + 1, 0)};
  for (size_t i = 0; i < t.leaves.size(); ++i) {
    const size_t parent = Slot(t, t.leaves[i].parent);
    ++c.children[parent];
    if (placed[i] >= t.leaves[i].min_member) ++c.met[parent];
  }
  if (top == 0) return c;
  std::vector<std::pair<int32_t, size_t>> by_depth;  // (depth, set)
  for (size_t s = 0; s < top; ++s) {
    ++c.children[Slot(t, t.sets[s].parent)];
    int32_t depth = 0;
    for (int32_t at = t.sets[s].parent; at != kNoParent; at = t.sets[at].parent) ++depth;
    by_depth.emplace_back(depth, s);
  }
  std::sort(by_depth.begin(), by_depth.end(), std::greater<>());
  for (const auto& [depth, s] : by_depth)
    if (c.met[s] >= Needed(t, c, s)) ++c.met[Slot(t, t.sets[s].parent)];
  return c;
}

}  // namespace

Status SubGroupTree::Check() const {
  const auto bad = [](const std::string& name, const std::string& what) {
    return InvalidArgument("subgroup " + name + " " + what);
  };
  const int32_t n = static_cast<int32_t>(sets.size());
  for (const SubGroup& leaf : leaves)
    if (leaf.parent < kNoParent || leaf.parent >= n) return bad(leaf.name, "has an unknown parent");
  std::vector<int32_t> children(sets.size() + 1, 0);
  for (const SubGroup& leaf : leaves) ++children[Slot(*this, leaf.parent)];
  for (const SubGroupSet& set : sets) {
    if (set.parent < kNoParent || set.parent >= n) return bad(set.name, "has an unknown parent");
    ++children[Slot(*this, set.parent)];
    int32_t steps = 0;
    for (int32_t at = set.parent; at != kNoParent; at = sets[at].parent)
      if (++steps > n) return bad(set.name, "is its own ancestor");
  }
  const auto out_of_range = [&](size_t node) {
    const int32_t min = node == sets.size() ? min_sub_group : sets[node].min_sub_group;
    return min < kAllChildren || min > children[node];
  };
  for (size_t s = 0; s < sets.size(); ++s) {
    if (out_of_range(s))
      return bad(sets[s].name, "has minSubGroup " + std::to_string(sets[s].min_sub_group) +
                                   " of its " + std::to_string(children[s]) + " children");
  }
  if (out_of_range(sets.size()))
    return InvalidArgument("minSubGroup " + std::to_string(min_sub_group) + " of the group's " +
                           std::to_string(children[sets.size()]) + " top-level sub-groups");
  return Status::Ok();
}

bool SubGroupTree::Satisfied(std::span<const int32_t> placed) const {
  const NodeCounts c = Count(*this, placed);
  return c.met[sets.size()] >= Needed(*this, c, sets.size());
}

void SubGroupTree::Deficits(std::span<const int32_t> placed, std::vector<int32_t>* deficit) const {
  deficit->assign(leaves.size(), 0);
  const NodeCounts c = Count(*this, placed);
  const auto satisfied = [&](size_t node) { return c.met[node] >= Needed(*this, c, node); };
  // Chooses what `node` lacks among its unsatisfied children.
  const auto fill = [&](const auto& self, size_t node) -> void {
    if (satisfied(node)) return;
    int32_t lacking = Needed(*this, c, node) - c.met[node];
    for (size_t s = 0; s < sets.size() && lacking > 0; ++s) {
      if (Slot(*this, sets[s].parent) != node || satisfied(s)) continue;
      self(self, s);
      --lacking;
    }
    for (size_t i = 0; i < leaves.size() && lacking > 0; ++i) {
      if (Slot(*this, leaves[i].parent) != node || placed[i] >= leaves[i].min_member) continue;
      (*deficit)[i] = leaves[i].min_member - placed[i];
      --lacking;
    }
  };
  fill(fill, sets.size());
}

}  // namespace vtenant::sched

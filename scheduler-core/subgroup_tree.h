// KAI's sub-group tree of one PodGroup, and when it is satisfied.
//
// Leaves (SubGroup, KAI's PodSet) hold pods; sets (SubGroupSet) hold
// sub-groups; the group itself holds the top ones. A leaf is satisfied when
// min_member of its pods are placed; a set, and the group, when
// min_sub_group of its direct children are (kAllChildren: every one). A
// group whose sub-groups name no parent and set no minSubGroup is satisfied
// when every leaf is, as before sub-groups nested.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "scheduler-core/model.h"

namespace vtenant::sched {

struct SubGroupTree {
  const std::vector<SubGroup>& leaves;
  const std::vector<SubGroupSet>& sets;
  int32_t min_sub_group = kAllChildren;  // the group's own

  static SubGroupTree Of(const PodGroup& g) {
    return {g.subgroups, g.subgroup_sets, g.min_sub_group};
  }

  // OK when every parent indexes a set, no set is its own ancestor, and no
  // min_sub_group (the group's or a set's) asks for more children than it
  // has: such a node could never be satisfied. InvalidArgument naming the
  // sub-group otherwise.
  Status Check() const;

  // Whether the tree is satisfied when leaf i has placed[i] pods placed
  // (`placed` has one count per leaf).
  bool Satisfied(std::span<const int32_t> placed) const;

  // How many more pods each leaf must have placed for the tree to be
  // satisfied, into `deficit` (one per leaf). At each node that is not
  // satisfied, as many of its unsatisfied children as it lacks are chosen,
  // sets before leaves, each in spec order (KAI takes the first children of
  // its sub-group order, where every unsatisfied child ranks alike); every
  // other leaf needs 0. Without nesting and minSubGroup this is each leaf's
  // min_member less its placed pods.
  void Deficits(std::span<const int32_t> placed, std::vector<int32_t>* deficit) const;
};

}  // namespace vtenant::sched

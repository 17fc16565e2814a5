#include "scheduler/gang_members.h"

#include <vector>

#include "scheduler-core/subgroup_tree.h"

namespace vtenant::scheduler {

bool RunsBelowMinimum(const sched::GroupSpec& group, const GangMembers& members) {
  if (members.placed == 0 || members.succeeded) return false;
  if (members.placed < group.min_member) return true;
  if (group.subgroups.empty()) return false;
  std::vector<int32_t> placed;
  for (const sched::SubGroup& leaf : group.subgroups) {
    auto it = members.placed_by_subgroup.find(leaf.name);
    placed.push_back(it == members.placed_by_subgroup.end() ? 0 : it->second);
  }
  return !sched::SubGroupTree{group.subgroups, group.subgroup_sets, group.min_sub_group}.Satisfied(
      placed);
}

}  // namespace vtenant::scheduler

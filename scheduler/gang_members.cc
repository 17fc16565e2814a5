#include "scheduler/gang_members.h"

namespace vtenant::scheduler {

bool RunsBelowMinimum(const sched::GroupSpec& group, const GangMembers& members) {
  if (members.placed == 0 || members.succeeded) return false;
  if (members.placed < group.min_member) return true;
  for (const sched::SubGroup& leaf : group.subgroups) {
    auto it = members.placed_by_subgroup.find(leaf.name);
    if ((it == members.placed_by_subgroup.end() ? 0 : it->second) < leaf.min_member) return true;
  }
  return false;
}

}  // namespace vtenant::scheduler

// KAI PodGroup sub-groups (spec.subGroups of scheduling.run.ai/v2alpha2) as
// the scheduler core sees them.
//
// Each entry has a `name` (unique in the group), an optional `minMember`
// and, in newer KAI, an optional `parent` naming another entry, so
// sub-groups nest. Pods join a sub-group by the label
// kai.scheduler/subgroup-name. As in KAI, only the leaves (entries no other
// entry names as parent) hold pods and carry a minimum; a parent is
// satisfied when all its children are, so the core gets the leaves only, in
// the order written. A leaf's minMember absent (or 0, which our CRD refuses
// and KAI reads as 1) is 1, KAI's own rule.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "kube/object.h"
#include "scheduler-core/model.h"

namespace vtenant::scheduler {

struct SubGroups {
  std::vector<sched::SubGroup> leaves;  // in spec order: the core's sub-groups
  std::vector<std::string> parents;     // entries that only group other entries
};

// Reads `sub_groups` (the value of spec.subGroups; null when absent gives
// none). InvalidArgument naming the entry and field for: an entry that is
// not an object, a missing or empty name, a duplicate name, a minMember that
// is not an integer or is negative, a parent that is not a string or names
// no entry, or parents that form a cycle. Nothing is defaulted past a
// mistake: the whole list is refused.
Result<SubGroups> ReadSubGroups(const rapidjson::Value* sub_groups);

}  // namespace vtenant::scheduler

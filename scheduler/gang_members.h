// GangMembers: which of a PodGroup's pods hold a place, counted each cycle,
// and RunsBelowMinimum: whether the group is a stale gang, as KAI's
// stale-gang eviction reads one.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

struct GangMembers {
  // Pods bound or being bound, terminating ones included (KAI's "active
  // used": they still hold their place), in all and by the sub-group each
  // names (pods that name none are counted in all only).
  int32_t placed = 0;
  std::map<std::string, int32_t, std::less<>> placed_by_subgroup;
  // One of the group's pods has succeeded: the job is finishing, not
  // broken, and KAI never calls it stale.
  bool succeeded = false;

  void AddPlaced(const std::string& subgroup) {
    ++placed;
    if (!subgroup.empty()) ++placed_by_subgroup[subgroup];
  }
};

// True when `group` runs below its minimum: some of its pods hold a place,
// none has succeeded, and fewer than minMember do, or its sub-group tree is
// not satisfied by the pods that do (sched::SubGroupTree: each leaf by its
// minMember, each parent by its minSubGroup). KAI's own IsStale asks every
// leaf for its minMember; with a minSubGroup that would call a JobSet
// running the replicas it asks for stale and evict it, so the rule that
// schedules the group decides here too. Such a group holds GPUs it
// cannot use; the core evicts it once it has been so for its grace
// (sched::PodGroup::stale_grace_s).
bool RunsBelowMinimum(const sched::GroupSpec& group, const GangMembers& members);

}  // namespace vtenant::scheduler

// The spec of a KAI PodGroup (scheduling.run.ai/v2alpha2) as every program
// reads it: the syncer before it mirrors a team's PodGroup on the host (and
// the Event it puts on one it refuses), the scheduler before it schedules a
// group. What one refuses, the other refuses with the same message.
//
// The fields, each absent (or null) when unset:
//   minMember          an integer from 0 to 2^31-1; absent is 1, and so is 0,
//                      KAI's "no gang requirement" (each pod goes as it
//                      fits, as in a gang of one). KAI's CRD has minimum 0
//                      too; a CRD installed without its schema is read by
//                      these rules all the same.
//   minSubGroup        an integer from 0 to the number of top-level
//                      sub-groups: how many of them must be satisfied for
//                      the group to run; absent: all. Not with minMember.
//   preemptibility     "preemptible" or "non-preemptible" (kai/preemptibility.h);
//                      "" is unset, as in KAI.
//   markUnschedulable  true or false.
//   priorityClassName  a string. Whether the host has that class is the
//                      syncer's business, not KAI's.
//   subGroups          a list of {name, minMember, minSubGroup, parent,
//                      topologyConstraint}: ReadSubGroups.
//   preemptionDelay    a duration in Go's syntax (metav1.Duration: "30s",
//                      "5m"), not negative: how long after its creation or
//                      its last eviction the group may not evict others.
//   stalenessGracePeriod  a duration in Go's syntax: how long the group may
//                      run below its minimum before it is evicted; negative:
//                      never.
// Other fields (queue, topologyConstraint, ...) are not checked here.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "kai/workload_topology.h"

namespace vtenant::kai {

// A sub-group that holds pods: its name, how many of them must run, the
// entry it sits in ("": the PodGroup itself), and the topology its pods
// must or should share (all "" when none).
struct SubGroup {
  std::string name;
  int32_t min_member = 0;
  std::string parent;
  TopologyConstraint topology;
  bool operator==(const SubGroup&) const = default;
};

// A sub-group that only groups other sub-groups: satisfied when
// `min_sub_group` of its direct children are (unset: all of them).
struct SubGroupSet {
  std::string name;
  std::string parent;  // "": the PodGroup itself
  std::optional<int32_t> min_sub_group;
  TopologyConstraint topology;  // that of every pod below it
  bool operator==(const SubGroupSet&) const = default;
};

// spec.subGroups as KAI reads it. Each entry has a `name` (unique in the
// group), an optional `minMember` or `minSubGroup` and, in newer KAI, an
// optional `parent` naming another entry, so sub-groups nest, and an
// optional `topologyConstraint` of its own (as spec.topologyConstraint:
// topology, requiredTopologyLevel, preferredTopologyLevel). Pods join a
// sub-group by the label kai.scheduler/subgroup-name. Only the leaves
// (entries no other entry names as parent) hold pods and carry a minMember;
// a parent is satisfied when minSubGroup of its children are (all when it
// has none). A parent's minMember means nothing: KAI's webhook refuses a new
// one and its scheduler passes over it; so is it passed over here.
struct SubGroups {
  std::vector<SubGroup> leaves;      // in spec order
  std::vector<SubGroupSet> parents;  // in spec order
  // How many entries sit at the top (their parent is the PodGroup).
  int32_t top_level = 0;
};

struct PodGroupSpec {
  int32_t min_member = 1;
  std::string preemptibility;  // "" when unset
  std::optional<bool> mark_unschedulable;
  std::string priority_class;  // "" when unset
  // spec.minSubGroup: how many top-level sub-groups must be satisfied.
  std::optional<int32_t> min_sub_group;
  SubGroups sub_groups;
  // Whole seconds, rounded up (a delay of 500ms is one second, never none);
  // unset when the field is.
  std::optional<int64_t> preemption_delay_s;
  // Whole seconds, rounded up; any negative value is -1 (never).
  std::optional<int64_t> staleness_grace_s;
};

// Reads `sub_groups` (the value of spec.subGroups; null or nullptr when
// absent gives none). A leaf's minMember absent or 0 is 0, as KAI reads it
// (its CRD's minimum is 0, and its scheduler gives a leaf max(minMember,
// 0)): such a leaf holds back nothing, its pods run as they fit. A parent
// of null or "" is none: the entry is at the top.
// InvalidArgument for a value that is not a list, and, naming the entry and
// field ("spec.subGroups[1] repeats the name \"a\"..."), for: an entry that
// is not an object, a missing or empty name, a duplicate name, a minMember
// or minSubGroup that is not an int32 or is negative, an entry with both, a
// minSubGroup on a leaf or above its number of children, a parent that is
// not a string or names no entry, parents that form a cycle, or a
// topologyConstraint that is not an object of strings. As KAI's
// webhook: nothing is defaulted past a mistake, the whole list is refused.
// (KAI's webhook only warns of a minSubGroup above the number of children;
// its scheduler then never runs the group. Refused here, it is said where
// the team looks.)
Result<SubGroups> ReadSubGroups(const rapidjson::Value* sub_groups);

// The spec.preemptionDelay and spec.stalenessGracePeriod KAI's pod grouper
// gives a workload's PodGroup, as text ("30s"): the first valid
// kai.scheduler/preemption-delay (kai.scheduler/staleness-grace-period)
// annotation of `objects`, which are the owners top first and then the
// pod; "" when none has one. A value the spec would refuse (not a
// duration, a negative delay) is passed over, as KAI's grouper passes it
// over. Null entries (an owner not known) are skipped.
struct WorkloadTimings {
  std::string preemption_delay;
  std::string staleness_grace_period;
  bool operator==(const WorkloadTimings&) const = default;
};
WorkloadTimings ReadWorkloadTimings(const std::vector<const rapidjson::Value*>& objects);

// Reads `pod_group`'s spec by the rules above. InvalidArgument naming the
// field ("spec.minMember -1 ...") and what it may be, and for minMember and
// minSubGroup set together (KAI's webhook refuses that too); the caller adds
// which PodGroup.
Result<PodGroupSpec> ReadPodGroupSpec(const rapidjson::Value& pod_group);

}  // namespace vtenant::kai

// The gang KAI's pod grouper makes of a workload whose pods have roles: one
// PodGroup with a sub-group tree (spec.subGroups), each pod labelled with
// the leaf it belongs to (kai.scheduler/subgroup-name). A JobSet's replicas
// (kai/jobset_gang.h), a LeaderWorkerSet's leader and workers
// (kai/leader_worker_set_gang.h), a PyTorchJob's master and workers
// (kai/pytorch_job_gang.h) and a RayCluster's head and worker groups
// (kai/ray_gang.h) are read into this one shape, so the syncer and the
// host's pod grouper write every such gang the same way.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kai/workload_topology.h"

namespace vtenant::kai {

// One entry of spec.subGroups: a leaf counts its pods (min_member), a
// parent its children (min_sub_group); never both.
struct GangSubGroup {
  std::string name;
  std::string parent;                    // "" for a top-level sub-group
  std::optional<int32_t> min_member;     // a leaf
  std::optional<int32_t> min_sub_group;  // a parent
  TopologyConstraint topology;           // its pods' (kai/workload_topology.h); none when empty
  bool operator==(const GangSubGroup&) const = default;
};

struct SubGroupGang {
  // The group's minimum: spec.minMember (pods) or spec.minSubGroup
  // (top-level sub-groups), exactly one of them.
  std::optional<int32_t> min_member;
  std::optional<int32_t> min_sub_group;
  std::vector<GangSubGroup> sub_groups;  // in spec order
  std::string pod_sub_group;             // the leaf the pod read with it joins
  // Appended to the workload's PodGroup name when the workload has one
  // group per replica ("-group-2" for a LeaderWorkerSet's third); "" when
  // the whole workload is one group.
  std::string name_suffix;
  bool operator==(const SubGroupGang&) const = default;
};

// KAI's bound on the segments a grouper cuts one group's workers into.
inline constexpr int64_t kMaxSegments = 10000;

// `n` as a count of a PodGroup's spec (an int32): 0 to INT32_MAX.
int32_t SpecCount(int64_t n);

// `gang`'s sub-groups as spec.subGroups, allocated with `a`.
rapidjson::Value SubGroupsValue(const SubGroupGang& gang, rapidjson::MemoryPoolAllocator<>& a);

}  // namespace vtenant::kai

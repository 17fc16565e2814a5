// CoreGroupFromHost: a KAI PodGroup (scheduling.run.ai/v2alpha2) as the
// scheduler core sees it.
//
// The spec is read by kai/podgroup_spec.h, the rules the syncer holds a
// team's PodGroups to as well. The group's priority is its class's, which
// ClusterView resolves against the host's PriorityClasses
// (kai/priority_classes.h); preemptibility as KAI decides it: the field
// when set, else preemptible below priority 100. Sub-groups: the core gets
// the leaves and the sets above them, each with its own topology
// constraint. spec.preemptionDelay and spec.stalenessGracePeriod become the
// spec's preemption_delay_s and stale_grace_s; when the group last lost a
// pod to an eviction, and since when it runs below its minimum, are the
// cycle's to add (ClusterView), starting from what the scheduler wrote on
// the group before.
#pragma once

#include <map>
#include <string>

#include "base/status.h"
#include "kai/preemptibility.h"
#include "kai/workload_topology.h"
#include "kube/object.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

struct CoreGroup {
  sched::GroupSpec spec;            // name "namespace/name"; priority left to the class
  std::string priority_class;       // spec.priorityClassName, "" when unset
  bool preemptibility_set = false;  // else DefaultPreemptible(priority) decides
  // spec.topologyConstraint as written; its levels are in `spec` too, read
  // as node label keys unless it names a Topology (ResolveTopology).
  kai::TopologyConstraint topology;
  // The same of each sub-group that has one (spec.subGroups[].topologyConstraint),
  // by sub-group name; in spec.subgroup_topology alike.
  std::map<std::string, kai::TopologyConstraint> subgroup_topology;
  // What the scheduler wrote on the group before (kai/names.h's
  // stale-podgroup-timestamp, last-eviction-timestamp and
  // last-start-timestamp), in seconds; -1, 0 and 0 when absent. ClusterView
  // starts from them after a restart.
  int64_t stale_since_written = -1;
  int64_t last_eviction_written = 0;
  int64_t last_start_written = 0;
};

// InvalidArgument naming the group for a spec kai::ReadPodGroupSpec
// refuses (a minMember below 1, an unknown preemptibility, a malformed
// spec.subGroups, ...); such a group is not scheduled.
Result<CoreGroup> CoreGroupFromHost(const rapidjson::Value& group);

using kai::DefaultPreemptible;

}  // namespace vtenant::scheduler

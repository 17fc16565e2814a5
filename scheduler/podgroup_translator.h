// PodGroupTranslator: a KAI PodGroup (scheduling.run.ai/v2alpha2) as the
// scheduler core sees it.
//
// The group's priority is its pods' (Kubernetes resolves priorityClassName
// into spec.priority on each pod); preemptibility as KAI decides it: the
// field when set, else preemptible below priority 100. Sub-groups as
// subgroups.h reads them: the core gets the leaves.
#pragma once

#include <string>

#include "base/status.h"
#include "kube/object.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

struct TranslatedGroup {
  sched::GroupSpec spec;            // name "namespace/name"; priority left to the pods
  bool preemptibility_set = false;  // else DefaultPreemptible(priority) decides
  // Sub-groups that only group others: a pod naming one waits (KAI's pods
  // join leaves).
  std::vector<std::string> parent_subgroups;
};

// InvalidArgument naming the group for an unknown preemptibility or a
// malformed spec.subGroups (ReadSubGroups); such a group is not scheduled.
Result<TranslatedGroup> TranslatePodGroup(const rapidjson::Value& group);

// KAI's rule for groups that do not say: preemptible below priority 100.
inline bool DefaultPreemptible(int32_t priority) { return priority < 100; }

}  // namespace vtenant::scheduler

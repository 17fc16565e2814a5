// ReviewPodGroup: what KAI's PodGroup admission webhook refuses, and what
// it only warns about, when a PodGroup (scheduling.run.ai/v2alpha2) is
// created or updated (KAI's podgroup_webhook.go; the messages are its).
//
// Refused, the first found:
//   - spec.minMember together with spec.minSubGroup;
//   - two sub-groups of one name ("duplicate subgroup name <n>");
//   - a parent that is not a sub-group ("parent <p> of <n> was not found");
//   - parents that go round ("cycle detected in subgroups");
//   - a sub-group with both minMember and minSubGroup.
// Refused, all of them, sub-groups by name:
//   - a leaf (no sub-group names it as parent) with minSubGroup, or without
//     minMember;
//   - on create, a parent sub-group with minMember.
// Warned: a minSubGroup above the number of direct children (the group's or
// a sub-group's); on update, a parent sub-group with minMember.
//
// Nothing else: a spec the API server's schema refuses is its to refuse,
// and what KAI admits and cannot schedule (a minMember below 1, a topology
// level no node has) the scheduler reads as KAI's does (podgroup_spec.h)
// and says why the group waits.
#pragma once

#include <rapidjson/document.h>

#include "kai/verdict.h"

namespace vtenant::kai {

Verdict ReviewPodGroup(const rapidjson::Value& podgroup, bool create);

}  // namespace vtenant::kai

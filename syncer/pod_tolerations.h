// Pod tolerations a tenant may bring to the host.
//
// A toleration lets a pod onto nodes tainted against it: GPU pools kept
// for one team, nodes being drained, the control plane's. So a pod keeps
// only the tolerations its Tenant allows (spec.isolation.allowedTolerations)
// and gets the Tenant's own (spec.isolation.tolerations) added. The others
// are left off the host pod rather than refusing it: a toleration only
// widens where a pod may run, so without it the pod runs where it may or
// waits, and the syncer says so with a Warning Event on the virtual pod.
//
// A pod toleration passes when an allowed entry of the same key asks for at
// least as much: an Exists entry any operator and value, an Equal entry
// that value with operator Equal; an entry without effect any effect, one
// with an effect that effect only (not a toleration of every effect). A
// toleration without a key (operator Exists: every taint) never passes.
// Always allowed, as the API server's DefaultTolerationSeconds admission
// adds them to every pod: node.kubernetes.io/not-ready and
// node.kubernetes.io/unreachable with effect NoExecute.
#pragma once

#include <string>
#include <vector>

#include "kube/object.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// Whether pod toleration `toleration` may reach the host under `allowed`.
bool TolerationAllowed(const rapidjson::Value& toleration,
                       const std::vector<AllowedToleration>& allowed);

// `toleration` as people read it: "key=value:NoSchedule", "key:NoExecute
// (Exists)", "every taint (Exists without a key)".
std::string DescribeToleration(const rapidjson::Value& toleration);

}  // namespace vtenant::syncer

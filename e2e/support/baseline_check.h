// BaselineViolations: the Pod Security Standards' "baseline" profile,
// checked on a Pod as the Kubernetes documentation states it
// (https://kubernetes.io/docs/concepts/security/pod-security-standards/).
//
// This is the escape suite's own reading of the standard, written apart
// from the syncer's translator (syncer/pod_security), so that the two
// cannot share a mistake: the suite checks every host pod the syncer made
// with it. It is deliberately plain: one function per control, every
// container kind (init, regular, ephemeral) walked the same way.
#pragma once

#include <string>
#include <vector>

#include "kube/object.h"

namespace vtenant::e2e {

// One sentence per baseline control `pod` breaks, naming the field
// ("spec.hostNetwork is true"); empty when the pod meets the profile.
std::vector<std::string> BaselineViolations(const rapidjson::Value& pod);

}  // namespace vtenant::e2e

// RandomPod: API-valid virtual pods with random security-relevant fields,
// for the escape suite's randomized test. Each field is drawn from values
// a Pod Security baseline admits and values it does not, so that a run
// has pods of both kinds, in combinations no table lists.
#pragma once

#include <random>
#include <string>

#include "kube/object.h"

namespace vtenant::e2e {

// A Pod named `name` whose fields are drawn with `random`. Combinations the
// API server refuses (hostProcess without hostNetwork, an unmasked /proc in
// the node's user namespace with host namespaces) are avoided where the
// rule is known; a pod the server still refuses is just not counted.
kube::Object RandomPod(const std::string& name, std::mt19937& random);

}  // namespace vtenant::e2e

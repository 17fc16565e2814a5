// The manifests compiled into the operator (CRDs from charts/), as JSON
// objects (kube/yaml.h reads them).
#pragma once

#include "base/status.h"
#include "kube/object.h"

namespace vtenant::op {

// KAI's PodGroup CRD (charts/vtenant/crds/scheduling.run.ai_podgroups.yaml,
// compiled in), installed in every virtual cluster.
Result<kube::Object> PodGroupCrd();

}  // namespace vtenant::op

// Manifests: YAML documents (CRDs from charts/) as JSON objects.
#pragma once

#include <string_view>

#include "base/status.h"
#include "kube/object.h"

namespace vtenant::op {

// Converts one YAML document to JSON. Plain scalars become numbers, booleans
// or null when they read as such (YAML 1.2 core schema); quoted scalars stay
// strings. Anchors and aliases are resolved.
Result<kube::Object> YamlToJson(std::string_view yaml_text);

// KAI's PodGroup CRD (charts/vtenant/crds/scheduling.run.ai_podgroups.yaml,
// compiled in), installed in every virtual cluster.
Result<kube::Object> PodGroupCrd();

}  // namespace vtenant::op

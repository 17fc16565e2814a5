// Installing CustomResourceDefinitions from YAML files, as `vtenant up`
// does with charts/vtenant/crds/ (Tenant, KAI Queue and PodGroup).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"
#include "kube/client.h"
#include "kube/object.h"

namespace vtenant::cli {

// Converts YAML text (one or more documents) to JSON objects. Plain
// scalars become booleans, nulls and numbers the way YAML 1.2's core schema
// reads them; quoted scalars stay strings; anchors and aliases are expanded.
Result<std::vector<kube::Object>> YamlDocumentsToJson(const std::string& yaml_text,
                                                      const std::string& source_name);

// Creates each CRD in the *.yaml files of `dir` (sorted), or replaces the
// stored one with it, then waits up to `wait` for every one to be
// Established. Returns the CRDs' names. NotFound when `dir` has no YAML.
Result<std::vector<std::string>> InstallCrds(kube::Client& client, const std::string& dir,
                                             std::chrono::seconds wait = std::chrono::seconds(60));

}  // namespace vtenant::cli

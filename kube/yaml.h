// YAML documents as Kubernetes objects.
//
// Manifests are written in YAML; the API server and everything here speak
// JSON. Conversion follows the YAML 1.2 core schema the way kubectl reads
// manifests: a plain (unquoted) scalar that reads as null, a boolean, an
// integer or a float becomes that JSON type; every quoted scalar stays a
// string, so `gpu-fraction: "0.5"` remains the string "0.5". Anchors and
// aliases are resolved; a repeated mapping key keeps its last value, as
// kubectl's reader does.
#pragma once

#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/object.h"

namespace vtenant::kube {

// Every non-empty document of a multi-document YAML stream ("---"
// separated), in order. A document of a `kind: List` is returned as is.
// Fails with InvalidArgument and the line of the first syntax error, or of
// the first mapping key that is not a scalar (JSON keys are strings).
Result<std::vector<Object>> ParseYamlDocuments(std::string_view text);

// One YAML document. InvalidArgument when there is not exactly one.
Result<Object> ParseYaml(std::string_view text);

}  // namespace vtenant::kube

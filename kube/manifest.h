// Manifests: applying YAML files of Kubernetes objects, as `kubectl apply
// --server-side` does, from C++.
//
// Programs install what they depend on (CRDs in a virtual cluster, the
// webhook configuration, the examples of the local environment) through
// here, so applying twice changes nothing and a field another manager owns
// is taken over only where we said so.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/client.h"
#include "kube/object.h"

namespace vtenant::kube {

struct ApplyOptions {
  std::string field_manager = "vtenant";
  // Take over fields another manager set (kubectl's --force-conflicts).
  bool force = true;
  // Namespace for namespaced objects that name none.
  std::string default_namespace = "default";
  // After applying a CustomResourceDefinition, wait up to this long until
  // the server serves it (condition Established), so objects of that kind
  // that follow in the same manifest can be applied. Zero: do not wait.
  std::chrono::milliseconds crd_established_timeout{30000};
};

// Applies one object by server-side apply; its type comes from apiVersion
// and kind (ResourceTypeFor). Returns the object as stored.
Result<Object> ApplyObject(Client& client, const rapidjson::Value& object,
                           const ApplyOptions& options = {});

// Applies every object of a multi-document YAML text, in order; the items
// of a `kind: List` document are applied one by one. Stops at the first
// failure, which names the object. InvalidArgument when the text is not
// YAML.
Status ApplyManifest(Client& client, std::string_view yaml_text, const ApplyOptions& options = {});

// ApplyManifest on each file, in order; a failure names the file. NotFound
// when a file cannot be read.
Status ApplyManifestFiles(Client& client, const std::vector<std::string>& paths,
                          const ApplyOptions& options = {});

// Waits until the CRD `name` has condition Established=True, polling every
// 50 ms on the real clock. Timeout when it does not within `timeout`, with
// the last read's error if reading failed.
Status WaitForCrdEstablished(Client& client, std::string_view name,
                             std::chrono::milliseconds timeout);

}  // namespace vtenant::kube

// PodReferences: the ConfigMaps, Secrets, PersistentVolumeClaims,
// ResourceClaims and ResourceClaimTemplates a pod names, wherever it names
// them (kube/pod_object_refs.h), and the claim an
// inline ephemeral claim is cloned from, when it is one of the pod's
// namespace. The syncer copies exactly these to the host before the pod,
// and removes a copy once no pod names it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "kube/object.h"

namespace vtenant::syncer {

struct PodReferences {
  std::set<std::string> config_maps;
  std::set<std::string> secrets;
  std::set<std::string> claims;  // PersistentVolumeClaims
  std::set<std::string> resource_claims;
  std::set<std::string> claim_templates;  // ResourceClaimTemplates
  // The pod mounts a projected service-account token (kube-api-access-*).
  bool service_account_token = false;

  bool operator==(const PodReferences&) const = default;
};

// The names (in the pod's own namespace) of what virtual pod `pod` refers to.
PodReferences ReferencesOf(const rapidjson::Value& pod);

// Whether `source` (a claim's dataSource or dataSourceRef; may be null) is
// a PersistentVolumeClaim of the claim's own namespace: kind
// PersistentVolumeClaim, no apiGroup, no namespace. The only data source a
// tenant's claim may have on the host, as its host copy.
bool IsSameNamespaceClaim(const rapidjson::Value* source);

// Index values for informer caches: "configmap/<ns>/<name>",
// "secret/<ns>/<name>", "pvc/<ns>/<name>", "resourceclaim/<ns>/<name>",
// "resourceclaimtemplate/<ns>/<name>", one per reference of `pod`.
std::vector<std::string> ReferenceIndexValues(const rapidjson::Value& pod);

}  // namespace vtenant::syncer

// Pod affinity on the host: terms that see the tenant's own pods only.
//
// On the host every pod of a tenant lives in one namespace, and other
// tenants' pods in theirs. A virtual pod's podAffinity, podAntiAffinity
// and topologySpreadConstraints select pods by labels within namespaces
// (its own, a list, or a namespaceSelector over namespace labels). On the
// host each such term is kept to the tenant's host namespace (no
// `namespaces`, no `namespaceSelector`: other tenants' pods are never
// counted, nor is their placement learnt from ours), and the virtual
// namespaces it meant become a requirement of its labelSelector on the
// label every host pod carries: vtenant.io/virtual-namespace In (...).
// A namespaceSelector is resolved against the virtual namespaces' labels
// when the pod is created (as the Service variables are); an empty one
// ({}) means every namespace of the tenant.
#pragma once

#include <map>
#include <string>

#include "kube/label_selector.h"
#include "kube/object.h"
#include "syncer/json_edit.h"

namespace vtenant::syncer {

// Virtual namespace name → its labels.
using NamespaceLabels = std::map<std::string, kube::Labels, std::less<>>;

// Whether `pod` has an affinity term with a namespaceSelector, so its
// translation needs the virtual namespaces' labels.
bool UsesNamespaceSelector(const rapidjson::Value& pod);

// Rewrites, in `spec` (a host pod's spec, as the allowlist copied it), the
// affinity terms and topology spread constraints of a pod in virtual
// namespace `ns` as above. `namespaces`: the tenant's virtual namespaces,
// needed only when UsesNamespaceSelector.
void ScopeToTenant(rapidjson::Value& spec, std::string_view ns, const NamespaceLabels& namespaces,
                   Allocator& a);

}  // namespace vtenant::syncer

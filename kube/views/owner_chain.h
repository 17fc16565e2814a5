// Owner chains: from a pod up to the workload that made it (Job,
// Deployment, StatefulSet, PyTorchJob, ...), which is how KAI's pod-grouper
// and our syncer decide which pods form one gang.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "kube/object.h"
#include "kube/views/object_view.h"

namespace vtenant::kube {

// Finds the owner `ref` of an object in namespace `ns` (typically in an
// informer cache); nullptr when it is not known (not cached, or gone).
using OwnerLookup = std::function<ObjectPtr(const OwnerReference& ref, std::string_view ns)>;

// The controller references from `object` upwards, nearest first: the
// pod's ReplicaSet, then its Deployment, and so on. Stops where an owner
// has no controller reference, where `lookup` does not know the owner (that
// reference is still included), at a uid that does not match (a re-created
// owner), or after `max_depth` steps, so a cycle cannot loop forever.
std::vector<OwnerReference> OwnerChain(const rapidjson::Value& object, const OwnerLookup& lookup,
                                       int max_depth = 8);

// The last element of OwnerChain, or nullopt for an object with no
// controller.
std::optional<OwnerReference> TopOwner(const rapidjson::Value& object, const OwnerLookup& lookup);

// The chain as JSON, [{apiVersion, kind, name, uid}, ...], for annotations.
std::string OwnerChainJson(const std::vector<OwnerReference>& chain);

}  // namespace vtenant::kube

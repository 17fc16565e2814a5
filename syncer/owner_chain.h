// OwnerChain: who owns a virtual pod, nearest first (ReplicaSet, then
// Deployment; Job, then CronJob).
//
// Host objects carry no ownerReferences (the host garbage collector would
// delete pods whose owners it cannot find), so the chain travels as the
// vtenant.io/owner-chain annotation and decides the pod's gang.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/object.h"
#include "kube/owner_reference.h"

namespace vtenant::syncer {

// Reads the virtual objects a chain walks through (from informer caches).
class ObjectLookup {
 public:
  virtual ~ObjectLookup() = default;
  // The virtual object of that apiVersion and kind, or nullptr when it is
  // absent or of a kind this lookup does not know.
  virtual kube::ObjectPtr Get(std::string_view api_version, std::string_view kind,
                              std::string_view ns, std::string_view name) = 0;
  // Whether Get can find objects of this kind at all: an absent object of
  // a known kind is one not seen yet (wait), of an unknown kind is normal.
  virtual bool Knows(std::string_view api_version, std::string_view kind) = 0;
};

// The controller ownerReferences from `object` up (an object's only
// reference when none says controller: hand-written workloads omit it),
// nearest first, following each owner `lookup` can find (at most 8 levels,
// so a cycle cannot loop). An owner it cannot find ends the chain but is
// part of it.
std::vector<kube::OwnerReference> OwnerChain(const rapidjson::Value& object, ObjectLookup& lookup);

// The annotation value: a JSON array of {apiVersion, kind, name, uid}.
std::string OwnerChainJson(const std::vector<kube::OwnerReference>& chain);

}  // namespace vtenant::syncer

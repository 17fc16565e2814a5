// EnsureObject: make one object on the API server carry the fields we own,
// writing only when it does not already.
//
// Reconcilers call it every pass for every object they manage; a pass where
// nothing drifted costs one GET per object and no writes, so resyncs are
// cheap and the resourceVersions of healthy objects stay still. A missing
// object (deleted by hand) is created again; one whose owned fields differ
// is corrected by server-side apply (field manager "vtenant-operator",
// forced: the fields we own are taken back from whoever changed them),
// which leaves fields we do not set alone.
#pragma once

#include "base/status.h"
#include "kube/client.h"
#include "syncer/names.h"

namespace vtenant::op {

enum class Ensured { kUnchanged, kCreated, kUpdated };

// Whether every field of `desired` has the same value in `actual` (objects
// compared member by member, recursively, extra members of `actual`
// allowed; arrays of the same length, item by item the same way, since the
// server adds defaulted fields to items such as RBAC subjects; other
// scalars exactly; numbers by value, so 1 equals 1.0).
bool ContainsFields(const rapidjson::Value& actual, const rapidjson::Value& desired);

// Creates `desired` if absent, applies it if its fields differ, else does
// nothing. `desired` must carry apiVersion, kind and metadata.name. A create
// that finds the name taken meanwhile reads the object and goes on. The
// client's errors, with what was being done.
Result<Ensured> EnsureObject(kube::Client& client, const kube::ResourceType& type,
                             std::string_view ns, const rapidjson::Value& desired);

// Deletes the object (background propagation); OK when it is already gone.
Status DeleteIfPresent(kube::Client& client, const kube::ResourceType& type, std::string_view ns,
                       std::string_view name);

// The labels the operator puts on what it makes, and so how it knows its
// own: app.kubernetes.io/managed-by=vtenant-operator, and for what it makes
// for one Tenant vtenant.io/tenant=<tenant>.
inline constexpr char kManagedByLabel[] = "app.kubernetes.io/managed-by";
inline constexpr char kManagedByOperator[] = "vtenant-operator";

// Whether `object` carries those labels (`tenant` empty: shared objects,
// the managed-by label alone) and is not a syncer's copy of a tenant's
// object. A tenant may write app.kubernetes.io/ labels on what the syncer
// copies into its host namespace, so that label alone could be forged;
// the syncer's own mark (vtenant.io/managed-by=vtenant-syncer, a key no
// tenant can set or remove) says such an object is never the operator's.
inline constexpr const auto& kCopyMarkLabel = syncer::kManagedByLabel;
inline constexpr const auto& kCopyMarkValue = syncer::kManagedByValue;
bool OwnedByOperator(const rapidjson::Value& object, std::string_view tenant);

// OK when `object` (of `type`) is OwnedByOperator(tenant); otherwise
// FailedPrecondition saying whose it is not and that it is left alone.
Status CheckOwnedByOperator(const rapidjson::Value& object, const kube::ResourceType& type,
                            std::string_view tenant);

// EnsureObject for an object that may exist without being the operator's
// (a cluster-scoped name, a namespace, a queue): one that exists and is
// not OwnedByOperator(tenant) is neither adopted nor changed;
// FailedPrecondition says so.
Result<Ensured> EnsureOwnedObject(kube::Client& client, const kube::ResourceType& type,
                                  std::string_view ns, const rapidjson::Value& desired,
                                  std::string_view tenant);

// What DeleteIfOwned did.
enum class Deleted { kDeleted, kAbsent, kNotOurs };

// Deletes the object only when it is OwnedByOperator(tenant), with its UID
// as a precondition so a replacement made meanwhile is not taken with it
// (kDeleted also when it is already being deleted); one that is not the
// operator's is left alone (kNotOurs). Unavailable when it was replaced
// between the read and the delete (the new one is judged on the next try).
Result<Deleted> DeleteIfOwned(kube::Client& client, const kube::ResourceType& type,
                              std::string_view ns, std::string_view name, std::string_view tenant);

}  // namespace vtenant::op

// EnsureObject: make one object on the API server carry the fields we own,
// writing only when it does not already.
//
// Reconcilers call it every pass for every object they manage; a pass where
// nothing drifted costs one GET per object and no writes, so resyncs are
// cheap and the resourceVersions of healthy objects stay still. A missing
// object (deleted by hand) is created again; one whose owned fields differ
// is corrected by server-side apply (field manager "vtenant-operator"),
// which leaves fields written by others alone.
#pragma once

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::op {

enum class Ensured { kUnchanged, kCreated, kUpdated };

// Whether every field of `desired` has the same value in `actual` (objects
// compared member by member, recursively; arrays and scalars exactly;
// numbers by value, so 1 equals 1.0).
bool ContainsFields(const rapidjson::Value& actual, const rapidjson::Value& desired);

// Creates `desired` if absent, applies it if its fields differ, else does
// nothing. `desired` must carry apiVersion, kind and metadata.name.
Result<Ensured> EnsureObject(kube::Client& client, const kube::ResourceType& type,
                             std::string_view ns, const rapidjson::Value& desired);

// Deletes the object; OK when it is already gone.
Status DeleteIfPresent(kube::Client& client, const kube::ResourceType& type, std::string_view ns,
                       std::string_view name);

}  // namespace vtenant::op

// Typed views: named accessors over a whole Kubernetes object held as a
// RapidJSON value, with no copy.
//
// A view never owns or copies the object, so a controller can read the
// fields it knows, change a few through a mutable view and write the same
// document back: every field it does not understand is still there. Views
// are cheap to make (one pointer) and valid while the object is.
//
// Each kind has an accessor template over a base, so its read accessors are
// written once and serve both views:
//   PodView pod(*cached);                 // const: reads only
//   MutablePod edit(doc);                  // reads and writes `doc`
//   edit.SetAnnotation("gpu-fraction", "0.5");
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/object.h"

namespace vtenant::kube {

// metadata.ownerReferences[i].
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
};

// Read access to the metadata every object has.
class ObjectView {
 public:
  explicit ObjectView(const rapidjson::Value& object) : object_(&object) {}

  const rapidjson::Value& json() const { return *object_; }

  std::string_view api_version() const { return GetString(json(), {"apiVersion"}); }
  std::string_view kind() const { return GetString(json(), {"kind"}); }
  std::string_view name() const { return Name(json()); }
  std::string_view ns() const { return Namespace(json()); }
  std::string_view uid() const { return Uid(json()); }
  std::string_view resource_version() const { return ResourceVersion(json()); }
  int64_t generation() const { return Generation(json()); }
  std::string_view creation_timestamp() const {
    return GetString(json(), {"metadata", "creationTimestamp"});
  }
  std::string_view deletion_timestamp() const {
    return GetString(json(), {"metadata", "deletionTimestamp"});
  }
  bool being_deleted() const { return IsBeingDeleted(json()); }
  std::optional<std::string_view> label(std::string_view key) const { return Label(json(), key); }
  std::optional<std::string_view> annotation(std::string_view key) const {
    return Annotation(json(), key);
  }
  // metadata.labels (or .annotations) as an object; nullptr when absent.
  const rapidjson::Value* labels() const { return Find(json(), {"metadata", "labels"}); }
  const rapidjson::Value* annotations() const { return Find(json(), {"metadata", "annotations"}); }
  bool has_finalizer(std::string_view finalizer) const;
  std::vector<OwnerReference> owner_references() const;
  // The owner reference with controller: true, if any.
  std::optional<OwnerReference> controller_reference() const;
  // "namespace/name" or "name": the key of caches and work queues.
  std::string key() const { return KeyOf(json()); }

 private:
  const rapidjson::Value* object_;
};

// Read and write access to an object's metadata. The document must outlive
// the view; writes allocate from its allocator.
class MutableObjectView : public ObjectView {
 public:
  explicit MutableObjectView(Object& object) : ObjectView(object), doc_(&object) {}

  Object& doc() const { return *doc_; }

  void SetName(std::string_view name) { SetString(doc(), {"metadata"}, "name", name); }
  void SetNamespace(std::string_view ns) { SetString(doc(), {"metadata"}, "namespace", ns); }
  void SetLabel(std::string_view key, std::string_view value) {
    SetString(doc(), {"metadata", "labels"}, key, value);
  }
  void RemoveLabel(std::string_view key) { RemoveMember(doc(), {"metadata", "labels"}, key); }
  void SetAnnotation(std::string_view key, std::string_view value) {
    SetString(doc(), {"metadata", "annotations"}, key, value);
  }
  void RemoveAnnotation(std::string_view key) {
    RemoveMember(doc(), {"metadata", "annotations"}, key);
  }
  // Adds `finalizer` unless present; returns whether it added it.
  bool AddFinalizer(std::string_view finalizer);
  // Removes `finalizer`; returns whether it was there.
  bool RemoveFinalizer(std::string_view finalizer);
  void SetOwnerReferences(const std::vector<OwnerReference>& owners);
  void ClearOwnerReferences() { RemoveMember(doc(), {"metadata"}, "ownerReferences"); }
  // Drops what the server owns (uid, resourceVersion, creationTimestamp,
  // managedFields, ...), so the object can be created elsewhere.
  void ClearServerFields();

 private:
  Object* doc_;
};

}  // namespace vtenant::kube

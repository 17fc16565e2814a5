#include "kube/views/object_view.h"

namespace vtenant::kube {
namespace {

rapidjson::Value Str(std::string_view s, rapidjson::Document::AllocatorType& alloc) {
  return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
}

}  // namespace

bool ObjectView::has_finalizer(std::string_view finalizer) const {
  const rapidjson::Value* finalizers = Find(json(), {"metadata", "finalizers"});
  if (finalizers == nullptr || !finalizers->IsArray()) return false;
  for (const rapidjson::Value& f : finalizers->GetArray()) {
    if (f.IsString() && std::string_view(f.GetString(), f.GetStringLength()) == finalizer) {
      return true;
    }
  }
  return false;
}

std::vector<OwnerReference> ObjectView::owner_references() const {
  std::vector<OwnerReference> out;
  const rapidjson::Value* refs = Find(json(), {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->IsArray()) return out;
  for (const rapidjson::Value& ref : refs->GetArray()) {
    if (!ref.IsObject()) continue;
    const rapidjson::Value* controller = Find(ref, {"controller"});
    const rapidjson::Value* block = Find(ref, {"blockOwnerDeletion"});
    out.push_back({.api_version = std::string(GetString(ref, {"apiVersion"})),
                   .kind = std::string(GetString(ref, {"kind"})),
                   .name = std::string(GetString(ref, {"name"})),
                   .uid = std::string(GetString(ref, {"uid"})),
                   .controller = controller != nullptr && controller->IsTrue(),
                   .block_owner_deletion = block != nullptr && block->IsTrue()});
  }
  return out;
}

std::optional<OwnerReference> ObjectView::controller_reference() const {
  for (OwnerReference& ref : owner_references()) {
    if (ref.controller) return std::move(ref);
  }
  return std::nullopt;
}

bool MutableObjectView::AddFinalizer(std::string_view finalizer) {
  if (has_finalizer(finalizer)) return false;
  auto& alloc = doc().GetAllocator();
  rapidjson::Value& metadata = EnsurePath(doc(), {"metadata"});
  auto it = metadata.FindMember("finalizers");
  if (it == metadata.MemberEnd() || !it->value.IsArray()) {
    metadata.RemoveMember("finalizers");
    metadata.AddMember("finalizers", rapidjson::Value(rapidjson::kArrayType), alloc);
    it = metadata.FindMember("finalizers");
  }
  it->value.PushBack(Str(finalizer, alloc), alloc);
  return true;
}

bool MutableObjectView::RemoveFinalizer(std::string_view finalizer) {
  if (!has_finalizer(finalizer)) return false;
  rapidjson::Value& finalizers = doc()["metadata"]["finalizers"];
  for (auto it = finalizers.Begin(); it != finalizers.End();) {
    if (it->IsString() && std::string_view(it->GetString(), it->GetStringLength()) == finalizer) {
      it = finalizers.Erase(it);
    } else {
      ++it;
    }
  }
  return true;
}

void MutableObjectView::SetOwnerReferences(const std::vector<OwnerReference>& owners) {
  auto& alloc = doc().GetAllocator();
  rapidjson::Value refs(rapidjson::kArrayType);
  for (const OwnerReference& o : owners) {
    rapidjson::Value ref(rapidjson::kObjectType);
    ref.AddMember("apiVersion", Str(o.api_version, alloc), alloc);
    ref.AddMember("kind", Str(o.kind, alloc), alloc);
    ref.AddMember("name", Str(o.name, alloc), alloc);
    ref.AddMember("uid", Str(o.uid, alloc), alloc);
    if (o.controller) ref.AddMember("controller", true, alloc);
    if (o.block_owner_deletion) ref.AddMember("blockOwnerDeletion", true, alloc);
    refs.PushBack(ref, alloc);
  }
  rapidjson::Value& metadata = EnsurePath(doc(), {"metadata"});
  metadata.RemoveMember("ownerReferences");
  metadata.AddMember("ownerReferences", refs, alloc);
}

void MutableObjectView::ClearServerFields() {
  for (const char* field :
       {"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
        "deletionGracePeriodSeconds", "generation", "managedFields", "selfLink"}) {
    RemoveMember(doc(), {"metadata"}, field);
  }
}

}  // namespace vtenant::kube

#include "syncer/owner_chain.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace vtenant::syncer {
namespace {

constexpr int kMaxDepth = 8;

// The ownerReference with controller: true, else the only one, else none.
const rapidjson::Value* ControllerRef(const rapidjson::Value& object) {
  const rapidjson::Value* refs = kube::Find(object, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->IsArray() || refs->Empty()) return nullptr;
  for (const rapidjson::Value& ref : refs->GetArray()) {
    const rapidjson::Value* controller = kube::Find(ref, {"controller"});
    if (controller != nullptr && controller->IsBool() && controller->GetBool()) return &ref;
  }
  return refs->Size() == 1 ? &(*refs)[0] : nullptr;
}

}  // namespace

std::vector<OwnerRef> OwnerChain(const rapidjson::Value& object, ObjectLookup& lookup) {
  std::vector<OwnerRef> chain;
  const std::string ns(kube::Namespace(object));
  kube::ObjectPtr holder;  // keeps the current owner alive while we read it
  const rapidjson::Value* current = &object;
  for (int depth = 0; depth < kMaxDepth && current != nullptr; ++depth) {
    const rapidjson::Value* ref = ControllerRef(*current);
    if (ref == nullptr) break;
    OwnerRef owner{std::string(kube::GetString(*ref, {"apiVersion"})),
                   std::string(kube::GetString(*ref, {"kind"})),
                   std::string(kube::GetString(*ref, {"name"})),
                   std::string(kube::GetString(*ref, {"uid"}))};
    holder = lookup.Get(owner.api_version, owner.kind, ns, owner.name);
    chain.push_back(std::move(owner));
    current = holder.get();
  }
  return chain;
}

std::string OwnerChainJson(const std::vector<OwnerRef>& chain) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartArray();
  for (const OwnerRef& owner : chain) {
    writer.StartObject();
    writer.Key("apiVersion");
    writer.String(owner.api_version.c_str());
    writer.Key("kind");
    writer.String(owner.kind.c_str());
    writer.Key("name");
    writer.String(owner.name.c_str());
    writer.Key("uid");
    writer.String(owner.uid.c_str());
    writer.EndObject();
  }
  writer.EndArray();
  return buffer.GetString();
}

}  // namespace vtenant::syncer

#include "syncer/owner_chain.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace vtenant::syncer {
namespace {

constexpr int kMaxDepth = 8;

// The ownerReference with controller: true, else the only one, else none:
// a workload written by hand may name its one owner without the flag.
const rapidjson::Value* ControllerRef(const rapidjson::Value& object) {
  if (const rapidjson::Value* controller = kube::ControllerReference(object)) return controller;
  const rapidjson::Value* refs = kube::Find(object, {"metadata", "ownerReferences"});
  return refs != nullptr && refs->IsArray() && refs->Size() == 1 ? &(*refs)[0] : nullptr;
}

}  // namespace

std::vector<kube::OwnerReference> OwnerChain(const rapidjson::Value& object, ObjectLookup& lookup) {
  std::vector<kube::OwnerReference> chain;
  const std::string ns(kube::Namespace(object));
  kube::ObjectPtr holder;  // keeps the current owner alive while we read it
  const rapidjson::Value* current = &object;
  for (int depth = 0; depth < kMaxDepth && current != nullptr; ++depth) {
    const rapidjson::Value* ref = ControllerRef(*current);
    if (ref == nullptr) break;
    kube::OwnerReference owner = kube::ReadOwnerReference(*ref);
    holder = lookup.Get(owner.api_version, owner.kind, ns, owner.name);
    chain.push_back(std::move(owner));
    current = holder.get();
  }
  return chain;
}

std::string OwnerChainJson(const std::vector<kube::OwnerReference>& chain) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartArray();
  for (const kube::OwnerReference& owner : chain) {
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

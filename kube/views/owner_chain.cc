#include "kube/views/owner_chain.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace vtenant::kube {

std::vector<OwnerReference> OwnerChain(const rapidjson::Value& object, const OwnerLookup& lookup,
                                       int max_depth) {
  std::vector<OwnerReference> chain;
  const std::string ns(Namespace(object));
  std::optional<OwnerReference> next = ObjectView(object).controller_reference();
  ObjectPtr holder;  // keeps the current owner alive while we read it
  while (next && static_cast<int>(chain.size()) < max_depth) {
    chain.push_back(*next);
    if (!lookup) break;
    ObjectPtr owner = lookup(*next, ns);
    if (!owner || Uid(*owner) != next->uid) break;
    holder = std::move(owner);
    next = ObjectView(*holder).controller_reference();
  }
  return chain;
}

std::optional<OwnerReference> TopOwner(const rapidjson::Value& object, const OwnerLookup& lookup) {
  std::vector<OwnerReference> chain = OwnerChain(object, lookup);
  if (chain.empty()) return std::nullopt;
  return chain.back();
}

std::string OwnerChainJson(const std::vector<OwnerReference>& chain) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartArray();
  for (const OwnerReference& ref : chain) {
    w.StartObject();
    w.Key("apiVersion");
    w.String(ref.api_version.c_str(), static_cast<rapidjson::SizeType>(ref.api_version.size()));
    w.Key("kind");
    w.String(ref.kind.c_str(), static_cast<rapidjson::SizeType>(ref.kind.size()));
    w.Key("name");
    w.String(ref.name.c_str(), static_cast<rapidjson::SizeType>(ref.name.size()));
    w.Key("uid");
    w.String(ref.uid.c_str(), static_cast<rapidjson::SizeType>(ref.uid.size()));
    w.EndObject();
  }
  w.EndArray();
  return buffer.GetString();
}

}  // namespace vtenant::kube

#include "syncer/node_translator.h"

#include "syncer/json_edit.h"
#include "syncer/names.h"

namespace vtenant::syncer {

kube::Object NodeTranslator::Mirrored(const rapidjson::Value& host_node) const {
  kube::Object out(rapidjson::kObjectType);
  Allocator& a = out.GetAllocator();
  SetStringMember(out, "apiVersion", "v1", a);
  SetStringMember(out, "kind", "Node", a);
  rapidjson::Value& meta = ObjectMember(out, "metadata", a);
  SetStringMember(meta, "name", kube::Name(host_node), a);
  rapidjson::Value& labels = ObjectMember(meta, "labels", a);
  if (const rapidjson::Value* v = kube::Find(host_node, {"metadata", "labels"})) {
    labels.CopyFrom(*v, a);
  }
  SetStringMember(labels, kManagedByLabel, kManagedByValue, a);
  rapidjson::Value& spec = ObjectMember(out, "spec", a);
  if (const rapidjson::Value* taints = kube::Find(host_node, {"spec", "taints"})) {
    SetMember(spec, "taints", rapidjson::Value(*taints, a), a);
  }
  rapidjson::Value& status = ObjectMember(out, "status", a);
  for (std::string_view f :
       {"capacity", "allocatable", "conditions", "addresses", "nodeInfo", "daemonEndpoints"}) {
    if (const rapidjson::Value* v = kube::Find(host_node, {"status", f})) {
      SetMember(status, f, rapidjson::Value(*v, a), a);
    }
  }
  if (!kubelet_address_.empty()) {
    rapidjson::Value address(rapidjson::kObjectType);
    SetStringMember(address, "type", "InternalIP", a);
    SetStringMember(address, "address", kubelet_address_, a);
    rapidjson::Value addresses(rapidjson::kArrayType);
    addresses.PushBack(address, a);
    SetMember(status, "addresses", std::move(addresses), a);
    rapidjson::Value endpoint(rapidjson::kObjectType);
    SetMember(endpoint, "Port", rapidjson::Value(kubelet_port_), a);
    rapidjson::Value endpoints(rapidjson::kObjectType);
    SetMember(endpoints, "kubeletEndpoint", std::move(endpoint), a);
    SetMember(status, "daemonEndpoints", std::move(endpoints), a);
  }
  return out;
}

bool IsManagedNode(const rapidjson::Value& virtual_node) {
  return kube::Label(virtual_node, kManagedByLabel) == std::string_view(kManagedByValue);
}

kube::Object NodeTranslator::FromHost(const rapidjson::Value& host_node) const {
  return Mirrored(host_node);
}

std::optional<kube::Object> NodeTranslator::Update(const rapidjson::Value& host_node,
                                                   const rapidjson::Value& virtual_node) const {
  kube::Object want = Mirrored(host_node);
  kube::Object out = kube::Clone(virtual_node);
  Allocator& a = out.GetAllocator();
  SetMember(ObjectMember(out, "metadata", a), "labels",
            rapidjson::Value(want["metadata"]["labels"], a), a);
  rapidjson::Value& spec = ObjectMember(out, "spec", a);
  if (const rapidjson::Value* taints = kube::Find(want, {"spec", "taints"})) {
    SetMember(spec, "taints", rapidjson::Value(*taints, a), a);
  } else {
    EraseMember(spec, "taints");
  }
  if (out == virtual_node) return std::nullopt;
  return out;
}

std::optional<kube::Object> NodeTranslator::StatusUpdate(
    const rapidjson::Value& host_node, const rapidjson::Value& virtual_node) const {
  kube::Object want = Mirrored(host_node);
  kube::Object out = kube::Clone(virtual_node);
  Allocator& a = out.GetAllocator();
  rapidjson::Value& status = ObjectMember(out, "status", a);
  for (const auto& m : want["status"].GetObject()) {
    SetMember(status, {m.name.GetString(), m.name.GetStringLength()}, rapidjson::Value(m.value, a),
              a);
  }
  if (out == virtual_node) return std::nullopt;
  return out;
}

}  // namespace vtenant::syncer

#include "syncer/endpoints_translator.h"

#include "syncer/json_edit.h"

namespace vtenant::syncer {
namespace {

const Schema& EndpointsSchema() {
  static const Schema kSchema = Schema().Custom({"apiVersion", "kind", "metadata", "subsets"});
  return kSchema;
}

const Schema& SubsetSchema() {
  static const Schema kPort = Schema().Copy({"name", "port", "protocol", "appProtocol"});
  static const Schema kSchema =
      Schema().ArrayOf("ports", &kPort).Custom({"addresses", "notReadyAddresses"});
  return kSchema;
}

const Schema& AddressSchema() {
  static const Schema kSchema = Schema().Copy({"ip", "hostname", "nodeName"}).Custom({"targetRef"});
  return kSchema;
}

}  // namespace

// Begins as every translator's ToHost does (object_translators.h): a
// parallel on purpose, the fields after it are this kind's own.
kube::Object EndpointsTranslator::ToHost(const rapidjson::Value& virtual_object,
                                         const HostNetwork& network,
                                         TranslationNotes* notes) const {
  kube::Object out = HostObjectBase(virtual_object, config_, DefaultMetadataRules(), notes);
  Allocator& a = out.GetAllocator();
  DroppedFields* dropped = notes != nullptr ? &notes->dropped : nullptr;
  EndpointsSchema().Apply(virtual_object, out, a, "", dropped);
  const std::string_view ns = kube::Namespace(virtual_object);
  const rapidjson::Value* subsets = kube::Find(virtual_object, {"subsets"});
  if (subsets == nullptr || !subsets->IsArray()) return out;
  LeftOffAddresses left_off;
  rapidjson::Value& host_subsets = ArrayMember(out, "subsets", a);
  for (const rapidjson::Value& subset : subsets->GetArray()) {
    rapidjson::Value host_subset(rapidjson::kObjectType);
    SubsetSchema().Apply(subset, host_subset, a, "subsets[]", dropped);
    for (std::string_view list : {"addresses", "notReadyAddresses"}) {
      const rapidjson::Value* addresses = kube::Find(subset, {list});
      if (addresses == nullptr || !addresses->IsArray()) continue;
      rapidjson::Value host_addresses(rapidjson::kArrayType);
      for (const rapidjson::Value& address : addresses->GetArray()) {
        const std::string_view ip = kube::GetString(address, {"ip"});
        if (!left_off.Keep(ip, network)) continue;
        rapidjson::Value host_address(rapidjson::kObjectType);
        AddressSchema().Apply(address, host_address, a, "subsets[]." + std::string(list) + "[]",
                              dropped);
        SetHostTargetRef(address, host_address, ns, config_, a);
        host_addresses.PushBack(std::move(host_address), a);
      }
      if (!host_addresses.Empty()) SetMember(host_subset, list, std::move(host_addresses), a);
    }
    // The API refuses a subset without addresses of either kind.
    if (host_subset.HasMember("addresses") || host_subset.HasMember("notReadyAddresses")) {
      host_subsets.PushBack(std::move(host_subset), a);
    }
  }
  left_off.Tell(notes);
  return out;
}

std::optional<kube::Object> EndpointsTranslator::Update(const rapidjson::Value& desired,
                                                        const rapidjson::Value& host) const {
  return WithFields(desired, host, {"subsets"});
}

}  // namespace vtenant::syncer

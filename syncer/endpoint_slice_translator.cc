#include "syncer/endpoint_slice_translator.h"

#include "syncer/json_edit.h"
#include "syncer/names.h"
#include "syncer/service_translator.h"

namespace vtenant::syncer {
namespace {

// The managers whose slices the host's own controllers make again.
bool ManagedByKubernetes(const rapidjson::Value& slice) {
  std::optional<std::string_view> manager = kube::Label(slice, kSliceManagedByLabel);
  return manager && (*manager == "endpointslice-controller.k8s.io" ||
                     *manager == "endpointslicemirroring-controller.k8s.io");
}

// A slice's service-name and managed-by labels are the translator's to
// write (it overwrites both), so they are not reported as left out.
const MetadataRules& SliceMetadataRules() {
  static const MetadataRules kRules = [] {
    MetadataRules rules = DefaultMetadataRules();
    rules.labels.keys = {kServiceNameLabel, kSliceManagedByLabel};
    return rules;
  }();
  return kRules;
}

const Schema& SliceSchema() {
  static const Schema kPort = Schema().Copy({"name", "protocol", "port", "appProtocol"});
  static const Schema kSchema = Schema()
                                    .Custom({"apiVersion", "kind", "metadata", "endpoints"})
                                    .Copy({"addressType"})
                                    .ArrayOf("ports", &kPort);
  return kSchema;
}

const Schema& EndpointSchema() {
  static const Schema kSchema = Schema()
                                    .Copy({"conditions", "hostname", "nodeName", "zone", "hints"})
                                    .Custom({"addresses", "targetRef"});
  return kSchema;
}

}  // namespace

std::optional<std::string_view> EndpointSliceTranslator::ServiceOf(const rapidjson::Value& slice) {
  std::optional<std::string_view> service = kube::Label(slice, kServiceNameLabel);
  if (!service || service->empty()) return std::nullopt;
  return service;
}

bool EndpointSliceTranslator::Wanted(const rapidjson::Value& slice,
                                     const rapidjson::Value* service) {
  std::optional<std::string_view> name = ServiceOf(slice);
  if (!name || service == nullptr || ManagedByKubernetes(slice)) return false;
  if (kube::Namespace(slice) == "default" && *name == "kubernetes") return false;
  return SelectsNoPods(*service);
}

// Begins as every translator's ToHost does (object_translators.h): a
// parallel on purpose, the fields after it are this kind's own.
kube::Object EndpointSliceTranslator::ToHost(const rapidjson::Value& virtual_slice,
                                             const HostNetwork& network,
                                             TranslationNotes* notes) const {
  kube::Object out = HostObjectBase(virtual_slice, config_, SliceMetadataRules(), notes);
  Allocator& a = out.GetAllocator();
  DroppedFields* dropped = notes != nullptr ? &notes->dropped : nullptr;
  const std::string_view ns = kube::Namespace(virtual_slice);
  rapidjson::Value& labels = out["metadata"]["labels"];
  if (std::optional<std::string_view> service = ServiceOf(virtual_slice)) {
    SetStringMember(labels, kServiceNameLabel, HostName(*service, ns, config_.tenant), a);
  }
  SetStringMember(labels, kSliceManagedByLabel, kSyncerSliceManager, a);
  SliceSchema().Apply(virtual_slice, out, a, "", dropped);
  const std::string_view address_type = kube::GetString(virtual_slice, {"addressType"});
  if (address_type != "IPv4" && address_type != "IPv6") {
    if (notes != nullptr) {
      notes->refusal = Refusal{kEndpointAddressNotAllowed,
                               "addressType " + std::string(address_type) +
                                   " is not copied to the host: only IPv4 and IPv6 slices are "
                                   "(a name is resolved by whoever follows it, on the tenant's "
                                   "behalf)"};
    }
    return out;
  }
  const rapidjson::Value* endpoints = kube::Find(virtual_slice, {"endpoints"});
  if (endpoints == nullptr || !endpoints->IsArray()) return out;
  LeftOffAddresses left_off;
  rapidjson::Value& host_endpoints = ArrayMember(out, "endpoints", a);
  for (const rapidjson::Value& endpoint : endpoints->GetArray()) {
    rapidjson::Value host_addresses(rapidjson::kArrayType);
    if (const rapidjson::Value* addresses = kube::Find(endpoint, {"addresses"});
        addresses != nullptr && addresses->IsArray()) {
      for (const rapidjson::Value& address : addresses->GetArray()) {
        if (!left_off.Keep(kube::GetString(address, {}), network)) continue;
        host_addresses.PushBack(rapidjson::Value(address, a), a);
      }
    }
    // The API refuses an endpoint without an address.
    if (host_addresses.Empty()) continue;
    rapidjson::Value host_endpoint(rapidjson::kObjectType);
    EndpointSchema().Apply(endpoint, host_endpoint, a, "endpoints[]", dropped);
    SetMember(host_endpoint, "addresses", std::move(host_addresses), a);
    SetHostTargetRef(endpoint, host_endpoint, ns, config_, a);
    host_endpoints.PushBack(std::move(host_endpoint), a);
  }
  left_off.Tell(notes);
  return out;
}

std::optional<kube::Object> EndpointSliceTranslator::Update(const rapidjson::Value& desired,
                                                            const rapidjson::Value& host) const {
  return WithFields(desired, host, {"ports", "endpoints"});
}

}  // namespace vtenant::syncer

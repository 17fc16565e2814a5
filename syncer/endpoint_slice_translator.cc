#include "syncer/endpoint_slice_translator.h"

#include "syncer/json_edit.h"
#include "syncer/names.h"
#include "syncer/object_translators.h"

namespace vtenant::syncer {
namespace {

// The managers whose slices the host's own controllers make again.
bool ManagedByKubernetes(const rapidjson::Value& slice) {
  std::optional<std::string_view> manager = kube::Label(slice, kSliceManagedByLabel);
  return manager && (*manager == "endpointslice-controller.k8s.io" ||
                     *manager == "endpointslicemirroring-controller.k8s.io");
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

kube::Object EndpointSliceTranslator::ToHost(const rapidjson::Value& virtual_slice) const {
  kube::Object out = HostObjectBase(virtual_slice, config_);
  Allocator& a = out.GetAllocator();
  const std::string_view ns = kube::Namespace(virtual_slice);
  if (std::optional<std::string_view> service = ServiceOf(virtual_slice)) {
    SetStringMember(out["metadata"]["labels"], kServiceNameLabel,
                    HostName(*service, ns, config_.tenant), a);
  }
  for (std::string_view f : {"addressType", "ports"}) {
    if (const rapidjson::Value* v = kube::Find(virtual_slice, {f})) {
      SetMember(out, f, rapidjson::Value(*v, a), a);
    }
  }
  const rapidjson::Value* endpoints = kube::Find(virtual_slice, {"endpoints"});
  if (endpoints == nullptr || !endpoints->IsArray()) return out;
  rapidjson::Value& host_endpoints = ArrayMember(out, "endpoints", a);
  for (const rapidjson::Value& endpoint : endpoints->GetArray()) {
    rapidjson::Value copy(endpoint, a);
    if (rapidjson::Value* ref = FindObject(copy, "targetRef")) {
      if (kube::GetString(*ref, {"kind"}) != "Pod") {
        EraseMember(copy, "targetRef");
      } else {
        const std::string_view ref_ns = kube::GetString(*ref, {"namespace"});
        // Only what names the host pod: the virtual uid and resourceVersion
        // would point at nothing there.
        rapidjson::Value host_ref(rapidjson::kObjectType);
        SetStringMember(host_ref, "kind", "Pod", a);
        SetStringMember(host_ref, "namespace", config_.host_namespace, a);
        SetStringMember(
            host_ref, "name",
            HostName(kube::GetString(*ref, {"name"}), ref_ns.empty() ? ns : ref_ns, config_.tenant),
            a);
        SetMember(copy, "targetRef", std::move(host_ref), a);
      }
    }
    host_endpoints.PushBack(std::move(copy), a);
  }
  return out;
}

std::optional<kube::Object> EndpointSliceTranslator::Update(const rapidjson::Value& virtual_slice,
                                                            const rapidjson::Value& host) const {
  return WithFields(ToHost(virtual_slice), host, {"ports", "endpoints"});
}

}  // namespace vtenant::syncer

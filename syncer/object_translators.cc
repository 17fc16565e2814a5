#include "syncer/object_translators.h"

#include "syncer/json_edit.h"
#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

void CopyMember(const rapidjson::Value& from, rapidjson::Value& to, std::string_view key,
                Allocator& a) {
  const rapidjson::Value* v = kube::Find(from, {key});
  if (v != nullptr) {
    SetMember(to, key, rapidjson::Value(*v, a), a);
  } else {
    EraseMember(to, key);
  }
}

}  // namespace

std::optional<kube::Object> WithFields(const rapidjson::Value& desired,
                                       const rapidjson::Value& host,
                                       std::initializer_list<std::string_view> fields) {
  kube::Object out = kube::Clone(host);
  Allocator& a = out.GetAllocator();
  rapidjson::Value& meta = ObjectMember(out, "metadata", a);
  CopyMember(desired["metadata"], meta, "labels", a);
  CopyMember(desired["metadata"], meta, "annotations", a);
  for (std::string_view f : fields) CopyMember(desired, out, f, a);
  if (out == host) return std::nullopt;
  return out;
}

kube::Object HostObjectBase(const rapidjson::Value& virtual_object, const SyncerConfig& config) {
  kube::Object out(rapidjson::kObjectType);
  Allocator& a = out.GetAllocator();
  const std::string_view ns = kube::Namespace(virtual_object);
  SetStringMember(out, "apiVersion", kube::GetString(virtual_object, {"apiVersion"}), a);
  SetStringMember(out, "kind", kube::GetString(virtual_object, {"kind"}), a);
  rapidjson::Value& meta = ObjectMember(out, "metadata", a);
  SetStringMember(meta, "name", HostName(kube::Name(virtual_object), ns, config.tenant), a);
  SetStringMember(meta, "namespace", config.host_namespace, a);
  rapidjson::Value& labels = ObjectMember(meta, "labels", a);
  if (const rapidjson::Value* v = kube::Find(virtual_object, {"metadata", "labels"})) {
    labels.CopyFrom(*v, a);
  }
  SetStringMember(labels, kTenantLabel, config.tenant, a);
  SetStringMember(labels, kVirtualNamespaceLabel, ns, a);
  SetStringMember(labels, kManagedByLabel, kManagedByValue, a);
  rapidjson::Value& annotations = ObjectMember(meta, "annotations", a);
  if (const rapidjson::Value* v = kube::Find(virtual_object, {"metadata", "annotations"})) {
    annotations.CopyFrom(*v, a);
  }
  // kubectl's record of the last apply is the tenant's business, not the host's.
  EraseMember(annotations, "kubectl.kubernetes.io/last-applied-configuration");
  SetStringMember(annotations, kVirtualNameAnnotation, kube::Name(virtual_object), a);
  SetStringMember(annotations, kVirtualNamespaceAnnotation, ns, a);
  SetStringMember(annotations, kVirtualUidAnnotation, kube::Uid(virtual_object), a);
  return out;
}

kube::Object DataTranslator::ToHost(const rapidjson::Value& virtual_object) const {
  kube::Object out = HostObjectBase(virtual_object, config_);
  for (std::string_view f : {"data", "binaryData", "type", "immutable"}) {
    CopyMember(virtual_object, out, f, out.GetAllocator());
  }
  return out;
}

std::optional<kube::Object> DataTranslator::Update(const rapidjson::Value& virtual_object,
                                                   const rapidjson::Value& host) const {
  if (NeedsReplace(virtual_object, host)) return std::nullopt;
  return WithFields(ToHost(virtual_object), host, {"data", "binaryData", "immutable"});
}

bool DataTranslator::NeedsReplace(const rapidjson::Value& virtual_object,
                                  const rapidjson::Value& host) const {
  const rapidjson::Value* immutable = kube::Find(host, {"immutable"});
  bool frozen = immutable != nullptr && immutable->IsBool() && immutable->GetBool();
  kube::Object desired = ToHost(virtual_object);
  if (frozen) {
    const rapidjson::Value* want = kube::Find(desired, {"data"});
    const rapidjson::Value* have = kube::Find(host, {"data"});
    if ((want == nullptr) != (have == nullptr) || (want != nullptr && *want != *have)) return true;
  }
  return kube::GetString(desired, {"type"}) != kube::GetString(host, {"type"});
}

kube::Object ClaimTranslator::ToHost(const rapidjson::Value& virtual_object) const {
  kube::Object out = HostObjectBase(virtual_object, config_);
  Allocator& a = out.GetAllocator();
  CopyMember(virtual_object, out, "spec", a);
  if (rapidjson::Value* spec = FindObject(out, "spec")) EraseMember(*spec, "volumeName");
  return out;
}

std::optional<kube::Object> ClaimTranslator::Update(const rapidjson::Value& virtual_object,
                                                    const rapidjson::Value& host) const {
  kube::Object desired = ToHost(virtual_object);
  std::optional<kube::Object> out = WithFields(desired, host, {});
  kube::Object result = out ? std::move(*out) : kube::Clone(host);
  const rapidjson::Value* want = kube::Find(desired, {"spec", "resources", "requests", "storage"});
  const rapidjson::Value* have = kube::Find(host, {"spec", "resources", "requests", "storage"});
  if (want != nullptr && (have == nullptr || *want != *have)) {
    kube::SetString(result, {"spec", "resources", "requests"}, "storage",
                    kube::GetString(*want, {}));
  }
  if (result == host) return std::nullopt;
  return result;
}

kube::Object ServiceTranslator::ToHost(const rapidjson::Value& virtual_object) const {
  kube::Object out = HostObjectBase(virtual_object, config_);
  Allocator& a = out.GetAllocator();
  const rapidjson::Value* vspec = kube::Find(virtual_object, {"spec"});
  rapidjson::Value& spec = ObjectMember(out, "spec", a);
  if (vspec != nullptr) {
    for (std::string_view f :
         {"ports", "type", "sessionAffinity", "sessionAffinityConfig", "publishNotReadyAddresses",
          "ipFamilyPolicy", "internalTrafficPolicy"}) {
      CopyMember(*vspec, spec, f, a);
    }
    if (kube::GetString(*vspec, {"clusterIP"}) == "None") {
      SetStringMember(spec, "clusterIP", "None", a);
    }
    if (rapidjson::Value* ports = FindArray(spec, "ports")) {
      for (rapidjson::Value& p : ports->GetArray()) EraseMember(p, "nodePort");
    }
    const rapidjson::Value* selector = kube::Find(*vspec, {"selector"});
    if (selector != nullptr && selector->IsObject() && !selector->ObjectEmpty()) {
      rapidjson::Value& host_selector = ObjectMember(spec, "selector", a);
      host_selector.CopyFrom(*selector, a);
      SetStringMember(host_selector, kTenantLabel, config_.tenant, a);
      SetStringMember(host_selector, kVirtualNamespaceLabel, kube::Namespace(virtual_object), a);
    }
  }
  return out;
}

bool SelectsNoPods(const rapidjson::Value& service) {
  const rapidjson::Value* selector = kube::Find(service, {"spec", "selector"});
  return selector == nullptr || !selector->IsObject() || selector->ObjectEmpty();
}

std::optional<kube::Object> ServiceTranslator::Update(const rapidjson::Value& virtual_object,
                                                      const rapidjson::Value& host) const {
  kube::Object desired = ToHost(virtual_object);
  std::optional<kube::Object> out = WithFields(desired, host, {});
  kube::Object result = out ? std::move(*out) : kube::Clone(host);
  Allocator& a = result.GetAllocator();
  rapidjson::Value& spec = ObjectMember(result, "spec", a);
  const rapidjson::Value& want = desired["spec"];
  for (std::string_view f : {"selector", "type", "sessionAffinity", "publishNotReadyAddresses"}) {
    CopyMember(want, spec, f, a);
  }
  // Ports without the node ports the host assigned: compare by what we set.
  rapidjson::Value* have_ports = FindArray(spec, "ports");
  const rapidjson::Value* want_ports = kube::Find(want, {"ports"});
  if (want_ports != nullptr && want_ports->IsArray()) {
    rapidjson::Value stripped(rapidjson::kArrayType);
    if (have_ports != nullptr) {
      for (const rapidjson::Value& p : have_ports->GetArray()) {
        rapidjson::Value copy(p, a);
        EraseMember(copy, "nodePort");
        stripped.PushBack(copy, a);
      }
    }
    if (stripped != *want_ports) SetMember(spec, "ports", rapidjson::Value(*want_ports, a), a);
  }
  if (result == host) return std::nullopt;
  return result;
}

kube::Object EndpointsTranslator::ToHost(const rapidjson::Value& virtual_object) const {
  kube::Object out = HostObjectBase(virtual_object, config_);
  Allocator& a = out.GetAllocator();
  const std::string_view ns = kube::Namespace(virtual_object);
  const rapidjson::Value* subsets = kube::Find(virtual_object, {"subsets"});
  if (subsets == nullptr || !subsets->IsArray()) return out;
  rapidjson::Value& host_subsets = ArrayMember(out, "subsets", a);
  for (const rapidjson::Value& subset : subsets->GetArray()) {
    rapidjson::Value copy(subset, a);
    for (std::string_view list : {"addresses", "notReadyAddresses"}) {
      rapidjson::Value* addresses = FindArray(copy, list);
      if (addresses == nullptr) continue;
      for (rapidjson::Value& address : addresses->GetArray()) {
        rapidjson::Value* ref = FindObject(address, "targetRef");
        if (ref == nullptr) continue;
        const std::string_view kind = kube::GetString(*ref, {"kind"});
        const std::string_view ref_ns = kube::GetString(*ref, {"namespace"});
        if (kind != "Pod") {
          EraseMember(address, "targetRef");
          continue;
        }
        const std::string host_pod =
            HostName(kube::GetString(*ref, {"name"}), ref_ns.empty() ? ns : ref_ns, config_.tenant);
        rapidjson::Value host_ref(rapidjson::kObjectType);
        SetStringMember(host_ref, "kind", "Pod", a);
        SetStringMember(host_ref, "namespace", config_.host_namespace, a);
        SetStringMember(host_ref, "name", host_pod, a);
        SetMember(address, "targetRef", std::move(host_ref), a);
      }
    }
    host_subsets.PushBack(std::move(copy), a);
  }
  return out;
}

std::optional<kube::Object> EndpointsTranslator::Update(const rapidjson::Value& virtual_object,
                                                        const rapidjson::Value& host) const {
  return WithFields(ToHost(virtual_object), host, {"subsets"});
}

}  // namespace vtenant::syncer

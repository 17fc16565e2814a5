#include "syncer/claim_translator.h"

#include "syncer/json_edit.h"
#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

constexpr char kRefused[] = "VolumeClaimNotAllowed";

const Schema& ClaimSchema() {
  static const Schema kResources = Schema().Copy({"requests", "limits"});
  static const Schema kSpec =
      Schema()
          .Copy({"accessModes", "volumeMode", "storageClassName", "volumeAttributesClassName"})
          .Object("resources", &kResources)
          .Custom({"volumeName", "selector", "dataSource", "dataSourceRef"});
  static const Schema kSchema =
      Schema().Custom({"apiVersion", "kind", "metadata", "status"}).Object("spec", &kSpec);
  return kSchema;
}

bool Present(const rapidjson::Value* v) {
  return v != nullptr && !v->IsNull() && !(v->IsString() && v->GetStringLength() == 0);
}

// A dataSource or dataSourceRef `source` of a claim in virtual namespace
// `ns`, as the host copy's: the host copy of a claim of the same namespace,
// or why it cannot be.
Result<rapidjson::Value> HostSource(const rapidjson::Value& source, std::string_view field,
                                    std::string_view ns, const SyncerConfig& config, Allocator& a) {
  const std::string_view kind = kube::GetString(source, {"kind"});
  const std::string_view group = kube::GetString(source, {"apiGroup"});
  const std::string_view name = kube::GetString(source, {"name"});
  const std::string_view source_ns = kube::GetString(source, {"namespace"});
  const std::string what = std::string(kind) + (group.empty() ? "" : "." + std::string(group)) +
                           " \"" + std::string(name) + "\"" +
                           (source_ns.empty() ? "" : " in namespace " + std::string(source_ns));
  if (!source.IsObject() || kind != "PersistentVolumeClaim" || !group.empty() || name.empty()) {
    return InvalidArgument(
        "spec." + std::string(field) + " names " + what +
        "; a claim may be cloned only from a PersistentVolumeClaim of its own namespace (no "
        "VolumeSnapshot or volume populator reaches the host)");
  }
  if (!source_ns.empty() && source_ns != ns) {
    return InvalidArgument("spec." + std::string(field) + " names " + what +
                           "; a claim may be cloned only from a claim of its own namespace");
  }
  rapidjson::Value host(rapidjson::kObjectType);
  SetStringMember(host, "kind", "PersistentVolumeClaim", a);
  SetStringMember(host, "name", HostName(name, ns, config.tenant), a);
  return host;
}

}  // namespace

kube::Object ClaimTranslator::ToHost(const rapidjson::Value& virtual_object,
                                     TranslationNotes* notes) const {
  kube::Object out = HostObjectBase(virtual_object, config_, DefaultMetadataRules(), notes);
  Allocator& a = out.GetAllocator();
  ClaimSchema().Apply(virtual_object, out, a, "", notes != nullptr ? &notes->dropped : nullptr);
  const rapidjson::Value* vspec = kube::Find(virtual_object, {"spec"});
  if (vspec == nullptr || !vspec->IsObject()) return out;
  rapidjson::Value& spec = ObjectMember(out, "spec", a);
  auto refuse = [&](std::string message) {
    if (notes != nullptr && !notes->refusal) notes->refusal = Refusal{kRefused, std::move(message)};
  };
  if (const rapidjson::Value* volume = kube::Find(*vspec, {"volumeName"}); Present(volume)) {
    refuse("spec.volumeName names PersistentVolume " + kube::ToJson(*volume) +
           "; a tenant's claim is bound to a volume the host provisions for it, never to one it "
           "names");
  }
  if (const rapidjson::Value* selector = kube::Find(*vspec, {"selector"}); Present(selector)) {
    refuse(
        "spec.selector picks host PersistentVolumes by label, which may be anyone's; a tenant's "
        "claim is bound to a volume the host provisions for it");
  }
  const std::string_view ns = kube::Namespace(virtual_object);
  for (std::string_view field : {"dataSource", "dataSourceRef"}) {
    const rapidjson::Value* source = kube::Find(*vspec, {field});
    if (!Present(source)) continue;
    Result<rapidjson::Value> host_source = HostSource(*source, field, ns, config_, a);
    if (!host_source.ok()) {
      refuse(std::string(host_source.status().message()));
      continue;
    }
    SetMember(spec, field, std::move(*host_source), a);
  }
  return out;
}

std::optional<kube::Object> ClaimTranslator::Update(const rapidjson::Value& desired,
                                                    const rapidjson::Value& host) const {
  std::optional<kube::Object> out = WithFields(desired, host, {});
  kube::Object result = out ? std::move(*out) : kube::Clone(host);
  // What the host's volume controllers and scheduler wrote on the copy
  // (pv.kubernetes.io/bind-completed, volume.kubernetes.io/selected-node,
  // the provisioner's name) stays: no tenant's key can be one of them.
  if (const rapidjson::Value* own = kube::Find(host, {"metadata", "annotations"});
      own != nullptr && own->IsObject()) {
    for (const auto& m : own->GetObject()) {
      const std::string_view key(m.name.GetString(), m.name.GetStringLength());
      if (!IsKubernetesKey(key) || !IsReservedKey(key, DefaultMetadataRules().annotations) ||
          kube::Annotation(desired, key).has_value() || !m.value.IsString())
        continue;
      kube::SetString(result, {"metadata", "annotations"}, key, m.value.GetString());
    }
  }
  const rapidjson::Value* want = kube::Find(desired, {"spec", "resources", "requests", "storage"});
  const rapidjson::Value* have = kube::Find(host, {"spec", "resources", "requests", "storage"});
  if (want != nullptr && (have == nullptr || *want != *have)) {
    kube::SetString(result, {"spec", "resources", "requests"}, "storage",
                    kube::GetString(*want, {}));
  }
  const std::string_view want_class =
      kube::GetString(desired, {"spec", "volumeAttributesClassName"});
  if (!want_class.empty() &&
      want_class != kube::GetString(host, {"spec", "volumeAttributesClassName"})) {
    kube::SetString(result, {"spec"}, "volumeAttributesClassName", want_class);
  }
  if (result == host) return std::nullopt;
  return result;
}

}  // namespace vtenant::syncer

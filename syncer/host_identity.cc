#include "syncer/host_identity.h"

#include "syncer/names.h"

namespace vtenant::syncer {

std::string VirtualIdentity::Describe(std::string_view host_kind) const {
  const std::string object = kind + " " + ns + "/" + name;
  if (kind == host_kind) return object;
  if (host_kind == "Secret" && kind == "Pod") return "the service-account token of " + object;
  return "the " + std::string(host_kind) + " of " + object;
}

std::optional<std::string> VirtualKeyOf(const rapidjson::Value& host) {
  std::optional<std::string_view> name = kube::Annotation(host, kVirtualNameAnnotation);
  std::optional<std::string_view> ns = kube::Annotation(host, kVirtualNamespaceAnnotation);
  if (!name || !ns) return std::nullopt;
  return kube::MakeKey(*ns, *name);
}

std::optional<VirtualIdentity> RecordedIdentity(const rapidjson::Value& host,
                                                std::string_view host_kind,
                                                std::string_view tenant) {
  if (kube::Label(host, kManagedByLabel) != kManagedByValue ||
      kube::Label(host, kTenantLabel) != tenant) {
    return std::nullopt;
  }
  std::optional<std::string_view> ns = kube::Annotation(host, kVirtualNamespaceAnnotation);
  std::optional<std::string_view> name = kube::Annotation(host, kVirtualNameAnnotation);
  if (!ns || !name || ns->empty() || name->empty()) return std::nullopt;
  VirtualIdentity identity{std::string(host_kind), std::string(*ns), std::string(*name),
                           std::string(kube::Annotation(host, kVirtualUidAnnotation).value_or(""))};
  if (std::optional<std::string_view> kind = kube::Annotation(host, kVirtualKindAnnotation)) {
    identity.kind = *kind;
  } else if (std::optional<std::string_view> chain = kube::Annotation(host, kOwnerChainAnnotation);
             chain && host_kind == "PodGroup") {
    Result<kube::Object> owners = kube::ParseJson(*chain);
    if (!owners.ok() || !owners->IsArray() || owners->Empty()) return std::nullopt;
    identity.kind = kube::GetString((*owners)[0], {"kind"});
  }
  return identity;
}

Status CheckIdentity(const rapidjson::Value& host, std::string_view host_kind,
                     const VirtualIdentity& wanted, std::string_view tenant) {
  const std::string wanted_text = wanted.Describe(host_kind);
  const std::string where = "host " + std::string(host_kind) + " " + std::string(kube::Name(host));
  std::optional<VirtualIdentity> recorded = RecordedIdentity(host, host_kind, tenant);
  if (!recorded) {
    return Status(StatusCode::kAlreadyExists,
                  wanted_text + " maps to " + where +
                      ", which exists and was not made by vtenant-syncer for tenant " +
                      std::string(tenant) + ": it is left alone, and " + wanted_text +
                      " is not synced while it is there");
  }
  if (recorded->kind == wanted.kind && recorded->ns == wanted.ns && recorded->name == wanted.name &&
      (wanted.uid.empty() || recorded->uid == wanted.uid)) {
    return Status::Ok();
  }
  std::string other = recorded->Describe(host_kind);
  if (recorded->kind == wanted.kind && recorded->ns == wanted.ns && recorded->name == wanted.name) {
    other += " (UID " + recorded->uid + ", not " + wanted.uid + ")";
  }
  return Status(StatusCode::kAlreadyExists, wanted_text + " and " + other + " both map to " +
                                                where + ", which stands for " + other + ": " +
                                                wanted_text + " is not synced while it does");
}

Status CheckTakenName(kube::Client& host, const kube::ResourceType& type, std::string_view ns,
                      std::string_view name, const VirtualIdentity& wanted,
                      std::string_view tenant) {
  Result<kube::ObjectList> found =
      host.List(type, ns, {.field_selector = "metadata.name=" + std::string(name)});
  if (!found.ok()) {
    return found.status().WithContext("reading host " + type.kind + " " + std::string(name) +
                                      ", whose name is taken");
  }
  for (const kube::Object& object : found->items) {
    if (kube::Name(object) == name) return CheckIdentity(object, type.kind, wanted, tenant);
  }
  return Unavailable("host " + type.kind + " " + std::string(name) +
                     " was there a moment ago and is gone; trying again");
}

}  // namespace vtenant::syncer

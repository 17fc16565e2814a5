#include "operator/ensure_object.h"

#include <optional>

#include "operator/tenant.h"

namespace vtenant::op {

bool ContainsFields(const rapidjson::Value& actual, const rapidjson::Value& desired) {
  if (desired.IsObject()) {
    if (!actual.IsObject()) return false;
    for (const auto& m : desired.GetObject()) {
      auto it = actual.FindMember(m.name);
      if (it == actual.MemberEnd() || !ContainsFields(it->value, m.value)) return false;
    }
    return true;
  }
  if (desired.IsArray()) {
    if (!actual.IsArray() || actual.Size() != desired.Size()) return false;
    for (rapidjson::SizeType i = 0; i < desired.Size(); ++i) {
      // Array items are owned whole, but the server may add defaulted fields
      // to them (e.g. RBAC subjects' apiGroup), so items compare as subsets.
      if (!ContainsFields(actual[i], desired[i])) return false;
    }
    return true;
  }
  if (desired.IsNumber()) return actual.IsNumber() && actual.GetDouble() == desired.GetDouble();
  return actual == desired;
}

namespace {

// Creates `desired` when there is no object of its name: nullopt. Otherwise
// the object there, also when someone (an earlier pass of ours, before a
// restart) created it between the read and the create.
Result<std::optional<kube::Object>> CreateOrRead(kube::Client& client,
                                                 const kube::ResourceType& type,
                                                 std::string_view ns,
                                                 const rapidjson::Value& desired) {
  const std::string_view name = kube::Name(desired);
  Result<kube::Object> actual = client.Get(type, ns, name);
  if (actual.status().code() == StatusCode::kNotFound) {
    Result<kube::Object> created = client.Create(type, ns, desired);
    if (created.ok()) return std::optional<kube::Object>();
    if (created.status().code() != StatusCode::kAlreadyExists) {
      return created.status().WithContext("creating " + type.resource + " " + std::string(name));
    }
    actual = client.Get(type, ns, name);
  }
  if (!actual.ok()) {
    return actual.status().WithContext("reading " + type.resource + " " + std::string(name));
  }
  return std::optional<kube::Object>(std::move(actual).value());
}

// Gives `actual` the fields of `desired` it lacks, by server-side apply.
Result<Ensured> Update(kube::Client& client, const kube::ResourceType& type, std::string_view ns,
                       const rapidjson::Value& desired, const rapidjson::Value& actual) {
  if (ContainsFields(actual, desired)) return Ensured::kUnchanged;
  const std::string_view name = kube::Name(desired);
  kube::PatchOptions options{.field_manager = "vtenant-operator", .force = true};
  Result<kube::Object> applied =
      client.Patch(type, ns, name, kube::PatchType::kApply, kube::ToJson(desired), options);
  if (!applied.ok()) {
    return applied.status().WithContext("applying " + type.resource + " " + std::string(name));
  }
  return Ensured::kUpdated;
}

}  // namespace

Result<Ensured> EnsureObject(kube::Client& client, const kube::ResourceType& type,
                             std::string_view ns, const rapidjson::Value& desired) {
  VT_ASSIGN_OR_RETURN(std::optional<kube::Object> actual, CreateOrRead(client, type, ns, desired));
  if (!actual) return Ensured::kCreated;
  return Update(client, type, ns, desired, *actual);
}

Status DeleteIfPresent(kube::Client& client, const kube::ResourceType& type, std::string_view ns,
                       std::string_view name) {
  Status s = client.Delete(type, ns, name, {.propagation_policy = "Background"});
  if (s.ok() || s.code() == StatusCode::kNotFound) return Status::Ok();
  return s.WithContext("deleting " + type.resource + " " + std::string(name));
}

bool OwnedByOperator(const rapidjson::Value& object, std::string_view tenant) {
  if (kube::Label(object, kManagedByLabel) != kManagedByOperator) return false;
  if (kube::Label(object, kCopyMarkLabel) == kCopyMarkValue) return false;
  return tenant.empty() || kube::Label(object, kTenantLabel) == tenant;
}

Status CheckOwnedByOperator(const rapidjson::Value& object, const kube::ResourceType& type,
                            std::string_view tenant) {
  if (OwnedByOperator(object, tenant)) return Status::Ok();
  const std::string name(kube::Name(object));
  return FailedPrecondition(
      type.kind + " " + std::string(name) + " exists and was not made by vtenant-operator" +
      (tenant.empty() ? std::string() : " for Tenant " + std::string(tenant)) +
      " (it does not carry the labels " + kManagedByLabel + "=" + kManagedByOperator +
      (tenant.empty() ? std::string()
                      : ", " + std::string(kTenantLabel) + "=" + std::string(tenant)) +
      "); it is neither adopted nor changed");
}

Result<Ensured> EnsureOwnedObject(kube::Client& client, const kube::ResourceType& type,
                                  std::string_view ns, const rapidjson::Value& desired,
                                  std::string_view tenant) {
  VT_ASSIGN_OR_RETURN(std::optional<kube::Object> actual, CreateOrRead(client, type, ns, desired));
  if (!actual) return Ensured::kCreated;
  // Someone's object of that name is neither adopted nor changed.
  VT_RETURN_IF_ERROR(CheckOwnedByOperator(*actual, type, tenant));
  return Update(client, type, ns, desired, *actual);
}

Result<Deleted> DeleteIfOwned(kube::Client& client, const kube::ResourceType& type,
                              std::string_view ns, std::string_view name, std::string_view tenant) {
  Result<kube::Object> actual = client.Get(type, ns, name);
  if (actual.status().code() == StatusCode::kNotFound) return Deleted::kAbsent;
  if (!actual.ok()) {
    return actual.status().WithContext("reading " + type.resource + " " + std::string(name));
  }
  if (!OwnedByOperator(*actual, tenant)) return Deleted::kNotOurs;
  if (kube::IsBeingDeleted(*actual)) return Deleted::kDeleted;  // on its way
  Status s = client.Delete(
      type, ns, name,
      {.precondition_uid = std::string(kube::Uid(*actual)), .propagation_policy = "Background"});
  if (s.ok()) return Deleted::kDeleted;
  if (s.code() == StatusCode::kNotFound) return Deleted::kAbsent;
  // Replaced since it was read: the new one is judged on the next try.
  if (s.code() == StatusCode::kConflict) {
    return Unavailable(type.kind + " " + std::string(name) + " was replaced while being deleted");
  }
  return s.WithContext("deleting " + type.resource + " " + std::string(name));
}

}  // namespace vtenant::op

#include "syncer/device_claim_translator.h"

#include <string>
#include <string_view>

#include "kai/names.h"
#include "syncer/json_edit.h"
#include "syncer/pod_policy.h"

namespace vtenant::syncer {
namespace {

constexpr char kDeviceClaimRefused[] = "DeviceClaimNotAllowed";

const Schema& DeviceClaimSpecSchema() {
  static const Schema kCel = Schema().Copy({"expression"});
  static const Schema kSelector = Schema().Object("cel", &kCel);
  static const Schema kExactly = Schema()
                                     .Copy({"deviceClassName", "allocationMode", "count"})
                                     .ArrayOf("selectors", &kSelector)
                                     .Custom({"adminAccess", "tolerations", "capacity"});
  static const Schema kSubrequest =
      Schema()
          .Copy({"name", "deviceClassName", "allocationMode", "count"})
          .ArrayOf("selectors", &kSelector)
          .Custom({"tolerations", "capacity"});
  static const Schema kRequest =
      Schema().Copy({"name"}).Object("exactly", &kExactly).ArrayOf("firstAvailable", &kSubrequest);
  static const Schema kConstraint =
      Schema().Copy({"requests", "matchAttribute", "distinctAttribute"});
  static const Schema kDevices = Schema()
                                     .ArrayOf("requests", &kRequest)
                                     .ArrayOf("constraints", &kConstraint)
                                     .Custom({"config"});
  static const Schema kSpec = Schema().Object("devices", &kDevices);
  return kSpec;
}

const Schema& DeviceClaimSchema() {
  static const Schema kSchema = Schema()
                                    .Custom({"apiVersion", "kind", "metadata", "status"})
                                    .Object("spec", &DeviceClaimSpecSchema());
  return kSchema;
}

const Schema& DeviceClaimTemplateSchema() {
  static const Schema kTemplateSpec =
      Schema().Custom({"metadata"}).Object("spec", &DeviceClaimSpecSchema());
  static const Schema kSchema =
      Schema().Custom({"apiVersion", "kind", "metadata"}).Object("spec", &kTemplateSpec);
  return kSchema;
}

// Set to something other than null, false, "", [] or {}.
bool AskedFor(const rapidjson::Value* v) {
  if (v == nullptr || v->IsNull() || v->IsFalse()) return false;
  if (v->IsString()) return v->GetStringLength() > 0;
  if (v->IsArray()) return !v->Empty();
  if (v->IsObject()) return !v->ObjectEmpty();
  return true;
}

std::string QuotedName(std::string_view s) { return "\"" + std::string(s) + "\""; }

// The first rule the claim spec `spec` breaks, found at `path` ("spec" or
// "spec.spec"), or "" when it breaks none.
std::string DeviceClaimProblem(const rapidjson::Value& spec, std::string_view path,
                               const SyncerConfig& config) {
  const std::string devices = std::string(path) + ".devices";
  // One exactly or firstAvailable entry, at `where`.
  auto device_problem = [&](const rapidjson::Value& r, const std::string& where) -> std::string {
    const std::string_view device_class = kube::GetString(r, {"deviceClassName"});
    if (!config.allowed_device_classes.contains(device_class)) {
      return where + ".deviceClassName " + QuotedName(device_class) +
             " is not a device class of the host this tenant may use " +
             TenantSetting("allowedDeviceClasses", config.allowed_device_classes);
    }
    if (AskedFor(kube::Find(r, {"adminAccess"}))) {
      return where +
             ".adminAccess: admin access reaches devices that other tenants' pods hold; a "
             "tenant's claim may not ask for it";
    }
    if (AskedFor(kube::Find(r, {"tolerations"}))) {
      return where +
             ".tolerations: a device taint is the host's word that a device is not to be used; "
             "a tenant's claim may not tolerate it";
    }
    if (AskedFor(kube::Find(r, {"capacity"}))) {
      return where + ".capacity: consumable device capacity is not offered to tenants";
    }
    return "";
  };
  const rapidjson::Value* requests = kube::Find(spec, {"devices", "requests"});
  if (requests != nullptr && requests->IsArray()) {
    for (const rapidjson::Value& r : requests->GetArray()) {
      const std::string where =
          devices + ".requests[" + QuotedName(kube::GetString(r, {"name"})) + "]";
      if (const rapidjson::Value* exactly = kube::Find(r, {"exactly"});
          exactly != nullptr && exactly->IsObject()) {
        if (std::string p = device_problem(*exactly, where + ".exactly"); !p.empty()) return p;
      }
      const rapidjson::Value* first = kube::Find(r, {"firstAvailable"});
      if (first == nullptr || !first->IsArray()) continue;
      for (const rapidjson::Value& sub : first->GetArray()) {
        const std::string sub_where =
            where + ".firstAvailable[" + QuotedName(kube::GetString(sub, {"name"})) + "]";
        if (std::string p = device_problem(sub, sub_where); !p.empty()) return p;
      }
    }
  }
  if (AskedFor(kube::Find(spec, {"devices", "config"}))) {
    return devices +
           ".config: a driver's configuration of the devices it hands out is the host's to "
           "give, in the DeviceClass; a tenant's claim may not carry one";
  }
  return "";
}

}  // namespace

kube::Object DeviceClaimTranslator::ToHost(const rapidjson::Value& virtual_object,
                                           TranslationNotes* notes) const {
  kube::Object out = HostObjectBase(virtual_object, config_, DefaultMetadataRules(), notes);
  Allocator& a = out.GetAllocator();
  DroppedFields* dropped = notes != nullptr ? &notes->dropped : nullptr;
  const bool is_template = kube::GetString(virtual_object, {"kind"}) == "ResourceClaimTemplate";
  (is_template ? DeviceClaimTemplateSchema() : DeviceClaimSchema())
      .Apply(virtual_object, out, a, "", dropped);
  if (!is_template) {
    SetStringMember(ObjectMember(ObjectMember(out, "metadata", a), "labels", a), kai::kQueueLabel,
                    config_.queue, a);
  } else if (rapidjson::Value* spec = FindObject(out, "spec")) {
    // The claims the host makes from the template take its metadata.
    rapidjson::Value meta(rapidjson::kObjectType);
    for (std::string_view map : {"labels", "annotations"}) {
      rapidjson::Value kept(rapidjson::kObjectType);
      CopyTenantKeys(
          kube::Find(virtual_object, {"spec", "metadata", map}), kept, a,
          map == "labels" ? DefaultMetadataRules().labels : DefaultMetadataRules().annotations,
          "spec.metadata." + std::string(map), dropped);
      if (map == "labels") SetStringMember(kept, kai::kQueueLabel, config_.queue, a);
      if (!kept.ObjectEmpty()) SetMember(meta, map, std::move(kept), a);
    }
    SetMember(*spec, "metadata", std::move(meta), a);
  }
  const rapidjson::Value* claim_spec = kube::Find(virtual_object, {"spec"});
  if (is_template && claim_spec != nullptr) claim_spec = kube::Find(*claim_spec, {"spec"});
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  std::string problem = DeviceClaimProblem(claim_spec != nullptr ? *claim_spec : kEmpty,
                                           is_template ? "spec.spec" : "spec", config_);
  if (!problem.empty() && notes != nullptr && !notes->refusal) {
    notes->refusal = Refusal{kDeviceClaimRefused, std::move(problem)};
  }
  return out;
}

std::optional<kube::Object> DeviceClaimTranslator::Update(const rapidjson::Value& desired,
                                                          const rapidjson::Value& host) const {
  return WithFields(desired, host, {});
}

std::optional<kube::Object> DeviceClaimTranslator::StatusFromHost(
    const rapidjson::Value* host, const rapidjson::Value& virtual_claim) const {
  if (kube::GetString(virtual_claim, {"kind"}) == "ResourceClaimTemplate") return std::nullopt;
  kube::Object out = kube::Clone(virtual_claim);
  Allocator& a = out.GetAllocator();
  const rapidjson::Value* given =
      host != nullptr ? kube::Find(*host, {"status", "allocation"}) : nullptr;
  const rapidjson::Value* shown = kube::Find(virtual_claim, {"status", "allocation"});
  rapidjson::Value status(rapidjson::kObjectType);
  if (given != nullptr && !given->IsNull() && (shown == nullptr || *shown == *given)) {
    SetMember(status, "allocation", rapidjson::Value(*given, a), a);
    if (const rapidjson::Value* devices = kube::Find(*host, {"status", "devices"})) {
      SetMember(status, "devices", rapidjson::Value(*devices, a), a);
    }
  }
  const rapidjson::Value* current = kube::Find(virtual_claim, {"status"});
  if (current != nullptr ? *current == status : status.ObjectEmpty()) return std::nullopt;
  SetMember(out, "status", std::move(status), a);
  return out;
}

}  // namespace vtenant::syncer

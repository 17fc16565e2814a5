#include "scheduler/device_taints.h"

#include "kube/object.h"
#include "scheduler/dra_device.h"

namespace vtenant::scheduler {
namespace {

DeviceTaint ReadTaint(const rapidjson::Value& taint) {
  return {std::string(kube::GetString(taint, {"key"})),
          std::string(kube::GetString(taint, {"value"})),
          std::string(kube::GetString(taint, {"effect"}))};
}

std::optional<std::string> OptionalString(const rapidjson::Value& object, const char* member) {
  const rapidjson::Value* v = kube::Find(object, {member});
  if (v == nullptr || !v->IsString()) return std::nullopt;
  return std::string(v->GetString(), v->GetStringLength());
}

}  // namespace

std::vector<DeviceTaint> ReadDeviceTaints(const rapidjson::Value* taints) {
  std::vector<DeviceTaint> out;
  if (taints == nullptr || !taints->IsArray()) return out;
  for (const rapidjson::Value& t : taints->GetArray()) out.push_back(ReadTaint(t));
  return out;
}

std::vector<DeviceToleration> ReadDeviceTolerations(const rapidjson::Value* tolerations) {
  std::vector<DeviceToleration> out;
  if (tolerations == nullptr || !tolerations->IsArray()) return out;
  for (const rapidjson::Value& t : tolerations->GetArray())
    out.push_back(
        {std::string(kube::GetString(t, {"key"})), kube::GetString(t, {"operator"}) == "Exists",
         std::string(kube::GetString(t, {"value"})), std::string(kube::GetString(t, {"effect"}))});
  return out;
}

std::optional<DeviceTaintRule> ReadDeviceTaintRule(const rapidjson::Value& rule) {
  const rapidjson::Value* selector = kube::Find(rule, {"spec", "deviceSelector"});
  if (selector == nullptr || !selector->IsObject()) return std::nullopt;
  DeviceTaintRule out{.driver = OptionalString(*selector, "driver"),
                      .pool = OptionalString(*selector, "pool"),
                      .device = OptionalString(*selector, "device")};
  if (const rapidjson::Value* taint = kube::Find(rule, {"spec", "taint"}))
    out.taint = ReadTaint(*taint);
  return out;
}

bool Tolerates(const DeviceToleration& toleration, const DeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  return toleration.exists || toleration.value == taint.value;
}

bool PreventsAllocation(const DeviceTaint& taint,
                        const std::vector<DeviceToleration>& tolerations) {
  if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") return false;
  for (const DeviceToleration& t : tolerations)
    if (Tolerates(t, taint)) return false;
  return true;
}

bool Applies(const DeviceTaintRule& rule, const Device& device) {
  return (!rule.driver || *rule.driver == device.driver) &&
         (!rule.pool || *rule.pool == device.pool) && (!rule.device || *rule.device == device.name);
}

}  // namespace vtenant::scheduler

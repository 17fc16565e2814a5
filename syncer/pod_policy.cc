#include "syncer/pod_policy.h"

#include <charconv>
#include <string_view>

#include "kai/gpu_request.h"
#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

bool IsTrue(const rapidjson::Value& v, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* f = kube::Find(v, path);
  return f != nullptr && f->IsBool() && f->GetBool();
}

Refusal NotAllowed(std::string_view feature, std::string_view where) {
  return {"PrivilegedFeatureNotAllowed",
          std::string(where) + " needs the privileged feature \"" + std::string(feature) +
              "\", which this tenant is not allowed (Tenant spec.isolation."
              "allowedPrivilegedFeatures)"};
}

std::optional<Refusal> CheckContainers(const rapidjson::Value& spec, std::string_view list,
                                       const SyncerConfig& config) {
  const rapidjson::Value* containers = kube::Find(spec, {list});
  if (containers == nullptr || !containers->IsArray()) return std::nullopt;
  for (const rapidjson::Value& c : containers->GetArray()) {
    std::string where = std::string("spec.") + std::string(list) + "[" +
                        std::string(kube::GetString(c, {"name"})) + "]";
    if (IsTrue(c, {"securityContext", "privileged"}) &&
        !config.allowed_privileged_features.contains("privileged")) {
      return NotAllowed("privileged", where + ".securityContext.privileged");
    }
    const rapidjson::Value* add = kube::Find(c, {"securityContext", "capabilities", "add"});
    if (add != nullptr && add->IsArray() && !add->Empty() &&
        !config.allowed_privileged_features.contains("capabilities")) {
      return NotAllowed("capabilities", where + ".securityContext.capabilities.add");
    }
  }
  return std::nullopt;
}

// The GPU request as kai/gpu_request.h reads it: the one rule the admission
// webhook and the scheduler apply on the host too, so a pod passed here is
// never refused there. The reason keeps its name although the request's
// limits are checked too.
std::optional<Refusal> CheckGpuAnnotations(const rapidjson::Value& pod) {
  Result<kai::GpuRequest> request = kai::ParseGpuRequest(pod);
  if (!request.ok()) return Refusal{"InvalidGpuAnnotation", request.status().message()};
  return std::nullopt;
}

}  // namespace

std::optional<Refusal> CheckPod(const rapidjson::Value& pod, const SyncerConfig& config) {
  const rapidjson::Value* spec = kube::Find(pod, {"spec"});
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  if (spec == nullptr) spec = &kEmpty;
  const auto& allowed = config.allowed_privileged_features;
  if (IsTrue(*spec, {"hostNetwork"}) && !allowed.contains("hostNetwork")) {
    return NotAllowed("hostNetwork", "spec.hostNetwork");
  }
  if (IsTrue(*spec, {"hostPID"}) && !allowed.contains("hostPID")) {
    return NotAllowed("hostPID", "spec.hostPID");
  }
  if (IsTrue(*spec, {"hostIPC"}) && !allowed.contains("hostIPC")) {
    return NotAllowed("hostIPC", "spec.hostIPC");
  }
  if (const rapidjson::Value* volumes = kube::Find(*spec, {"volumes"});
      volumes != nullptr && volumes->IsArray() && !allowed.contains("hostPath")) {
    for (const rapidjson::Value& v : volumes->GetArray()) {
      if (kube::Find(v, {"hostPath"}) != nullptr) {
        return NotAllowed(
            "hostPath", "spec.volumes[" + std::string(kube::GetString(v, {"name"})) + "].hostPath");
      }
    }
  }
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
    if (auto refusal = CheckContainers(*spec, list, config)) return refusal;
  }
  if (auto refusal = CheckGpuAnnotations(pod)) return refusal;
  std::string_view priority_class = kube::GetString(*spec, {"priorityClassName"});
  if (!priority_class.empty() && !priority_class.starts_with("system-") &&
      !config.allowed_priority_classes.contains(priority_class)) {
    std::string allowed_list;
    for (const std::string& c : config.allowed_priority_classes) {
      allowed_list += (allowed_list.empty() ? "" : ", ") + c;
    }
    return Refusal{"PriorityClassNotAllowed",
                   "spec.priorityClassName \"" + std::string(priority_class) +
                       "\" is not a priority class of the host; use one of: " + allowed_list};
  }
  return std::nullopt;
}

}  // namespace vtenant::syncer

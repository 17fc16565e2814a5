#include "syncer/pod_policy.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

#include "kai/gpu_request.h"
#include "kai/names.h"
#include "syncer/isolation_vocabulary.h"
#include "syncer/names.h"
#include "syncer/pod_references.h"
#include "syncer/pod_schema.h"
#include "syncer/pod_security.h"

namespace vtenant::syncer {

std::string TenantSetting(std::string_view setting,
                          const std::set<std::string, std::less<>>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  if (list.empty()) list = "none";
  return "(Tenant spec.isolation." + std::string(setting) + ": " + list + ")";
}

namespace {

// The refusal for the rules `pod` breaks, the first one deciding the reason.
Refusal SecurityRefusal(const std::vector<PodSecurityViolation>& violations) {
  auto describe = [](const PodSecurityViolation& v) {
    std::string text = v.field + " " + v.what;
    if (!v.feature.empty()) {
      text += ": it needs the privileged feature \"" + v.feature +
              "\", which this tenant is not allowed (Tenant spec.isolation."
              "allowedPrivilegedFeatures)";
    } else if (v.level == PodSecurityLevel::kRestricted) {
      text +=
          ", which the Pod Security Standard \"restricted\" of this tenant forbids (Tenant "
          "spec.isolation.podSecurity)";
    } else {
      text += ", which the Pod Security Standard \"baseline\" forbids and no Tenant setting allows";
    }
    return text;
  };
  constexpr size_t kShown = 5;
  std::string message = describe(violations.front());
  for (size_t i = 1; i < violations.size() && i < kShown; ++i) {
    message += "; also " + describe(violations[i]);
  }
  if (violations.size() > kShown) {
    message += "; and " + std::to_string(violations.size() - kShown) + " more";
  }
  return {
      violations.front().feature.empty() ? "PodSecurityViolation" : "PrivilegedFeatureNotAllowed",
      std::move(message)};
}

std::optional<Refusal> CheckEphemeralClaim(const rapidjson::Value& volume,
                                           const std::string& where) {
  const rapidjson::Value* spec = kube::Find(volume, {"ephemeral", "volumeClaimTemplate", "spec"});
  if (spec == nullptr) return std::nullopt;
  const std::string path = where + ".ephemeral.volumeClaimTemplate.spec.";
  if (kube::Find(*spec, {"selector"}) != nullptr) {
    return Refusal{"VolumeClaimNotAllowed",
                   path +
                       "selector would bind a volume of the host's by its labels; a "
                       "tenant's claim only gets a volume provisioned for it"};
  }
  if (!kube::GetString(*spec, {"volumeName"}).empty()) {
    return Refusal{"VolumeClaimNotAllowed",
                   path + "volumeName \"" + std::string(kube::GetString(*spec, {"volumeName"})) +
                       "\" would bind a volume of the host's; a tenant's claim only gets a "
                       "volume provisioned for it"};
  }
  for (std::string_view field : {"dataSource", "dataSourceRef"}) {
    const rapidjson::Value* source = kube::Find(*spec, {field});
    if (source == nullptr || source->IsNull() || IsSameNamespaceClaim(source)) continue;
    std::string_view group = kube::GetString(*source, {"apiGroup"});
    std::string_view source_ns = kube::GetString(*source, {"namespace"});
    return Refusal{
        "VolumeClaimNotAllowed",
        path + std::string(field) + " names " + std::string(kube::GetString(*source, {"kind"})) +
            (group.empty() ? "" : "." + std::string(group)) + " \"" +
            std::string(kube::GetString(*source, {"name"})) + "\"" +
            (source_ns.empty() ? "" : " in namespace " + std::string(source_ns)) +
            "; a tenant's claim may only be cloned from a PersistentVolumeClaim of its own "
            "namespace"};
  }
  return std::nullopt;
}

std::optional<Refusal> CheckVolumes(const rapidjson::Value& spec, const SyncerConfig& config) {
  const rapidjson::Value* volumes = kube::Find(spec, {"volumes"});
  if (volumes == nullptr || !volumes->IsArray()) return std::nullopt;
  for (const rapidjson::Value& v : volumes->GetArray()) {
    const std::string where = "spec.volumes[" + std::string(kube::GetString(v, {"name"})) + "]";
    const std::string_view type = VolumeType(v);
    if (type.empty() || type == "hostPath") continue;  // hostPath: a Pod Security rule
    if (type == "csi") {
      const std::string_view driver = kube::GetString(v, {"csi", "driver"});
      if (!config.allowed_csi_drivers.contains(driver)) {
        return Refusal{"CSIDriverNotAllowed",
                       where + ".csi.driver \"" + std::string(driver) +
                           "\" is not a driver this tenant may use in inline volumes " +
                           TenantSetting("allowedCSIDrivers", config.allowed_csi_drivers)};
      }
      continue;
    }
    if (type == "gitRepo") {
      return Refusal{"VolumeTypeNotAllowed",
                     where +
                         ".gitRepo: gitRepo volumes run git on the node and are never "
                         "allowed; clone the repository in an init container instead"};
    }
    if (!config.allowed_volume_types.contains(type)) {
      return Refusal{"VolumeTypeNotAllowed",
                     where + "." + std::string(type) +
                         ": this tenant may not use volumes of this type " +
                         TenantSetting("allowedVolumeTypes", config.allowed_volume_types)};
    }
    if (type == "ephemeral") {
      if (auto refusal = CheckEphemeralClaim(v, where)) return refusal;
    }
  }
  return std::nullopt;
}

bool HasResourceClaims(const rapidjson::Value& spec) {
  auto non_empty = [](const rapidjson::Value* v) {
    return v != nullptr && v->IsArray() && !v->Empty();
  };
  if (non_empty(kube::Find(spec, {"resourceClaims"})) ||
      non_empty(kube::Find(spec, {"resources", "claims"}))) {
    return true;
  }
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
    const rapidjson::Value* containers = kube::Find(spec, {list});
    if (containers == nullptr || !containers->IsArray()) continue;
    for (const rapidjson::Value& c : containers->GetArray()) {
      if (non_empty(kube::Find(c, {"resources", "claims"}))) return true;
    }
  }
  return false;
}

// The environment variables through which the NVIDIA container toolkit
// picks a container's devices. Set by the tenant, they would hand its
// container GPUs (or the management of MIG devices) that no queue accounts
// for, on any node whose toolkit still reads them from unprivileged
// containers.
constexpr std::array<std::string_view, 3> kDeviceVariables = {
    "NVIDIA_VISIBLE_DEVICES", "NVIDIA_MIG_CONFIG_DEVICES", "NVIDIA_MIG_MONITOR_DEVICES"};

// The values that pick no device ("void" or empty: no GPU runtime at all;
// "none": the driver without devices), which any container may set.
constexpr std::array<std::string_view, 3> kNoDevice = {"", "void", "none"};

// The refusal for the first device variable a container of `spec` sets to
// pick devices, unless the Tenant allows the privileged feature
// "gpuDevices". A value read from elsewhere (valueFrom) may pick any, so it
// counts too.
std::optional<Refusal> CheckDeviceVariables(const rapidjson::Value& spec,
                                            const SyncerConfig& config) {
  if (config.allowed_privileged_features.contains(kGpuDevicesFeature)) return std::nullopt;
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
    const rapidjson::Value* containers = kube::Find(spec, {list});
    if (containers == nullptr || !containers->IsArray()) continue;
    for (const rapidjson::Value& c : containers->GetArray()) {
      const rapidjson::Value* env = kube::Find(c, {"env"});
      if (env == nullptr || !env->IsArray()) continue;
      for (const rapidjson::Value& var : env->GetArray()) {
        const std::string_view name = kube::GetString(var, {"name"});
        if (std::find(kDeviceVariables.begin(), kDeviceVariables.end(), name) ==
            kDeviceVariables.end()) {
          continue;
        }
        const std::string_view value = kube::GetString(var, {"value"});
        const bool picks_devices =
            kube::Find(var, {"valueFrom"}) != nullptr ||
            std::find(kNoDevice.begin(), kNoDevice.end(), value) == kNoDevice.end();
        if (!picks_devices) continue;
        return Refusal{
            "PrivilegedFeatureNotAllowed",
            "spec." + std::string(list) + "[" + std::string(kube::GetString(c, {"name"})) +
                "].env[" + std::string(name) +
                "] picks GPUs past the device plugin and the scheduler: it needs the privileged "
                "feature \"gpuDevices\", which this tenant is not allowed (Tenant "
                "spec.isolation.allowedPrivilegedFeatures); ask for GPUs with nvidia.com/gpu "
                "limits or the gpu-fraction and gpu-memory annotations, or set it to \"void\" "
                "or \"none\""};
      }
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
  std::vector<PodSecurityViolation> violations =
      CheckPodSecurity(pod, config.pod_security, config.allowed_privileged_features);
  if (!violations.empty()) return SecurityRefusal(violations);
  if (auto refusal = CheckVolumes(*spec, config)) return refusal;
  if (std::string_view runtime_class = kube::GetString(*spec, {"runtimeClassName"});
      !runtime_class.empty() && !config.allowed_runtime_classes.contains(runtime_class)) {
    return Refusal{"RuntimeClassNotAllowed",
                   "spec.runtimeClassName \"" + std::string(runtime_class) +
                       "\" is not a runtime class this tenant may use " +
                       TenantSetting("allowedRuntimeClasses", config.allowed_runtime_classes)};
  }
  if (HasResourceClaims(*spec) && config.allowed_device_classes.empty()) {
    return Refusal{"ResourceClaimsNotAllowed",
                   "spec.resourceClaims / resources.claims: this tenant may not claim devices "
                   "of the host " +
                       TenantSetting("allowedDeviceClasses", config.allowed_device_classes) +
                       "; ask for GPUs with nvidia.com/gpu limits or the gpu-fraction and "
                       "gpu-memory annotations"};
  }
  if (auto refusal = CheckGpuAnnotations(pod)) return refusal;
  if (auto refusal = CheckDeviceVariables(*spec, config)) return refusal;
  std::string_view priority_class = kube::GetString(*spec, {"priorityClassName"});
  if (!priority_class.empty() && !priority_class.starts_with("system-") &&
      !config.allowed_priority_classes.contains(priority_class)) {
    return Refusal{"PriorityClassNotAllowed",
                   "spec.priorityClassName \"" + std::string(priority_class) +
                       "\" is not a priority class of the host this tenant may use " +
                       TenantSetting("allowedPriorityClasses, as the host offers them",
                                     config.allowed_priority_classes)};
  }
  // KAI's pod grouper names the pod's group after this label when the pod
  // names no class, and a group's priority is its class's.
  if (std::optional<std::string_view> label = kube::Label(pod, kai::kPriorityClassLabel);
      label && !label->empty() && !config.allowed_priority_classes.contains(*label)) {
    return Refusal{"PriorityClassNotAllowed",
                   "label " + std::string(kai::kPriorityClassLabel) + " \"" + std::string(*label) +
                       "\" is not a priority class of the host this tenant may use " +
                       TenantSetting("allowedPriorityClasses, as the host offers them",
                                     config.allowed_priority_classes)};
  }
  return std::nullopt;
}

}  // namespace vtenant::syncer

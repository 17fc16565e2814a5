#include "syncer/syncer_config.h"

#include "base/flags.h"
#include "syncer/isolation_vocabulary.h"

namespace vtenant::syncer {
namespace {

std::set<std::string, std::less<>> SetOf(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

std::string JoinNames(const std::set<std::string, std::less<>>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

const std::set<std::string, std::less<>>& KnownPrivilegedFeatures() {
  static const std::set<std::string, std::less<>> kFeatures = SetOf(PrivilegedFeatureNames());
  return kFeatures;
}

const std::set<std::string, std::less<>>& KnownVolumeTypes() {
  static const std::set<std::string, std::less<>> kTypes = SetOf(VolumeTypeNames());
  return kTypes;
}

const std::set<std::string, std::less<>>& DefaultVolumeTypes() {
  static const std::set<std::string, std::less<>> kTypes = SetOf(DefaultVolumeTypeNames());
  return kTypes;
}

SyncerConfig& SyncerConfig::operator=(const SyncerConfig& other) {
  if (this == &other) return *this;
  tenant = other.tenant;
  queue = other.queue;
  host_namespace = other.host_namespace;
  scheduler_name = other.scheduler_name;
  pod_security = other.pod_security;
  allowed_privileged_features = other.allowed_privileged_features;
  node_selector = other.node_selector;
  tolerations = kube::Clone(other.tolerations);
  allowed_tolerations = other.allowed_tolerations;
  allowed_runtime_classes = other.allowed_runtime_classes;
  allowed_volume_types = other.allowed_volume_types;
  allowed_csi_drivers = other.allowed_csi_drivers;
  allowed_device_classes = other.allowed_device_classes;
  virtual_service_host = other.virtual_service_host;
  virtual_service_port = other.virtual_service_port;
  cluster_dns = other.cluster_dns;
  allowed_priority_classes = other.allowed_priority_classes;
  allowed_service_types = other.allowed_service_types;
  service_range = other.service_range;
  sync_endpoints = other.sync_endpoints;
  kubelet_address = other.kubelet_address;
  kubelet_port = other.kubelet_port;
  return *this;
}

Result<std::set<std::string, std::less<>>> ParsePrivilegedFeatures(std::string_view text) {
  std::set<std::string, std::less<>> features;
  for (std::string_view part : ParseCommaList(text)) {
    if (!KnownPrivilegedFeatures().contains(part)) {
      return InvalidArgument("unknown privileged feature \"" + std::string(part) +
                             "\"; known: " + JoinNames(KnownPrivilegedFeatures()));
    }
    features.emplace(part);
  }
  return features;
}

Result<PodSecurityLevel> ParsePodSecurityLevel(std::string_view text) {
  if (text == "baseline") return PodSecurityLevel::kBaseline;
  if (text == "restricted") return PodSecurityLevel::kRestricted;
  return InvalidArgument("pod security level \"" + std::string(text) +
                         "\" is not one of baseline, restricted");
}

std::set<std::string, std::less<>> ParseNameList(std::string_view text) {
  std::set<std::string, std::less<>> names;
  for (std::string& part : ParseCommaList(text)) names.insert(std::move(part));
  return names;
}

Result<std::set<std::string, std::less<>>> ParseVolumeTypes(std::string_view text) {
  std::set<std::string, std::less<>> types = ParseNameList(text);
  if (types.empty()) return DefaultVolumeTypes();
  for (const std::string& t : types) {
    if (!KnownVolumeTypes().contains(t)) {
      return InvalidArgument("unknown volume type \"" + t +
                             "\"; known: " + JoinNames(KnownVolumeTypes()) +
                             " (hostPath is a privileged feature, csi volumes are allowed by "
                             "driver, gitRepo never)");
    }
  }
  return types;
}

Result<std::set<std::string, std::less<>>> ParseServiceTypes(std::string_view text) {
  std::set<std::string, std::less<>> types = ParseNameList(text);
  for (const std::string& t : types) {
    if (t != "ClusterIP" && t != "NodePort" && t != "LoadBalancer") {
      return InvalidArgument("service type \"" + t +
                             "\" is not one of ClusterIP, NodePort, LoadBalancer");
    }
  }
  types.emplace("ClusterIP");
  return types;
}

Result<std::vector<AllowedToleration>> ParseAllowedTolerations(std::string_view text) {
  std::vector<AllowedToleration> out;
  if (text.empty()) return out;
  Result<kube::Object> parsed = kube::ParseJson(text);
  if (!parsed.ok()) return parsed.status().WithContext("allowed tolerations");
  if (!parsed->IsArray()) return InvalidArgument("allowed tolerations must be a JSON array");
  for (const rapidjson::Value& t : parsed->GetArray()) {
    if (!t.IsObject()) return InvalidArgument("each allowed toleration must be a JSON object");
    for (const auto& m : t.GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (name != "key" && name != "operator" && name != "value" && name != "effect") {
        return InvalidArgument("allowed toleration member \"" + std::string(name) +
                               "\" is not one of key, operator, value, effect");
      }
      if (!m.value.IsString()) {
        return InvalidArgument("allowed toleration member " + std::string(name) +
                               " must be a string");
      }
    }
    AllowedToleration entry;
    entry.key = kube::GetString(t, {"key"});
    const std::string_view op = kube::GetString(t, {"operator"});
    entry.value = kube::GetString(t, {"value"});
    entry.effect = kube::GetString(t, {"effect"});
    if (entry.key.empty()) {
      return InvalidArgument(
          "an allowed toleration needs a key: one that tolerates every taint is never allowed");
    }
    if (op != "" && op != "Equal" && op != "Exists") {
      return InvalidArgument("allowed toleration of " + entry.key + ": operator \"" +
                             std::string(op) + "\" is not one of Exists, Equal");
    }
    entry.exists = op == "Exists";
    if (entry.exists && !entry.value.empty()) {
      return InvalidArgument("allowed toleration of " + entry.key +
                             ": operator Exists takes no value");
    }
    if (entry.effect != "" && entry.effect != "NoSchedule" && entry.effect != "PreferNoSchedule" &&
        entry.effect != "NoExecute") {
      return InvalidArgument("allowed toleration of " + entry.key + ": effect \"" + entry.effect +
                             "\" is not one of NoSchedule, PreferNoSchedule, NoExecute");
    }
    out.push_back(std::move(entry));
  }
  return out;
}

Result<std::map<std::string, std::string>> ParseNodeSelector(std::string_view text) {
  std::map<std::string, std::string> selector;
  for (std::string_view part : ParseCommaList(text)) {
    size_t eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return InvalidArgument("node selector entry \"" + std::string(part) + "\" is not key=value");
    }
    selector[std::string(part.substr(0, eq))] = std::string(part.substr(eq + 1));
  }
  return selector;
}

Result<kube::Object> ParseTolerations(std::string_view text) {
  if (text.empty()) return kube::Object(rapidjson::kArrayType);
  Result<kube::Object> parsed = kube::ParseJson(text);
  if (!parsed.ok()) return parsed.status().WithContext("tolerations");
  if (!parsed->IsArray()) return InvalidArgument("tolerations must be a JSON array");
  for (const rapidjson::Value& t : parsed->GetArray()) {
    if (!t.IsObject()) return InvalidArgument("each toleration must be a JSON object");
  }
  return parsed;
}

}  // namespace vtenant::syncer

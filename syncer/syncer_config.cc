#include "syncer/syncer_config.h"

namespace vtenant::syncer {
namespace {

std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> parts;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) parts.push_back(part);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return parts;
}

}  // namespace

SyncerConfig& SyncerConfig::operator=(const SyncerConfig& other) {
  if (this == &other) return *this;
  tenant = other.tenant;
  queue = other.queue;
  host_namespace = other.host_namespace;
  allowed_privileged_features = other.allowed_privileged_features;
  node_selector = other.node_selector;
  tolerations = kube::Clone(other.tolerations);
  virtual_service_host = other.virtual_service_host;
  virtual_service_port = other.virtual_service_port;
  allowed_priority_classes = other.allowed_priority_classes;
  allowed_service_types = other.allowed_service_types;
  sync_endpoints = other.sync_endpoints;
  return *this;
}

Result<std::set<std::string, std::less<>>> ParsePrivilegedFeatures(std::string_view text) {
  std::set<std::string, std::less<>> features;
  for (std::string_view part : SplitCommas(text)) {
    if (!KnownPrivilegedFeatures().contains(part)) {
      return InvalidArgument("unknown privileged feature \"" + std::string(part) +
                             "\"; known: hostPath, hostNetwork, hostPID, hostIPC, privileged, "
                             "capabilities");
    }
    features.emplace(part);
  }
  return features;
}

Result<std::set<std::string, std::less<>>> ParseServiceTypes(std::string_view text) {
  std::set<std::string, std::less<>> types;
  for (std::string_view part : SplitCommas(text)) types.emplace(part);
  for (const std::string& t : types) {
    if (t != "ClusterIP" && t != "NodePort" && t != "LoadBalancer") {
      return InvalidArgument("service type \"" + t +
                             "\" is not one of ClusterIP, NodePort, LoadBalancer");
    }
  }
  types.emplace("ClusterIP");
  return types;
}

Result<std::map<std::string, std::string>> ParseNodeSelector(std::string_view text) {
  std::map<std::string, std::string> selector;
  for (std::string_view part : SplitCommas(text)) {
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

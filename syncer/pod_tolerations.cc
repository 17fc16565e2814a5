#include "syncer/pod_tolerations.h"

namespace vtenant::syncer {

bool TolerationAllowed(const rapidjson::Value& toleration,
                       const std::vector<AllowedToleration>& allowed) {
  if (!toleration.IsObject()) return false;
  const std::string_view key = kube::GetString(toleration, {"key"});
  if (key.empty()) return false;
  const bool exists = kube::GetString(toleration, {"operator"}) == "Exists";
  const std::string_view value = kube::GetString(toleration, {"value"});
  const std::string_view effect = kube::GetString(toleration, {"effect"});
  if ((key == "node.kubernetes.io/not-ready" || key == "node.kubernetes.io/unreachable") &&
      effect == "NoExecute") {
    return true;
  }
  for (const AllowedToleration& entry : allowed) {
    if (entry.key != key) continue;
    if (!entry.effect.empty() && entry.effect != effect) continue;
    if (entry.exists || (!exists && entry.value == value)) return true;
  }
  return false;
}

std::string DescribeToleration(const rapidjson::Value& toleration) {
  const std::string key(kube::GetString(toleration, {"key"}));
  const bool exists = kube::GetString(toleration, {"operator"}) == "Exists";
  const std::string_view effect = kube::GetString(toleration, {"effect"});
  if (key.empty()) return "every taint (Exists without a key)";
  std::string out = key;
  if (!exists) out += "=" + std::string(kube::GetString(toleration, {"value"}));
  out += ":" + (effect.empty() ? std::string("every effect") : std::string(effect));
  if (exists) out += " (Exists)";
  return out;
}

}  // namespace vtenant::syncer

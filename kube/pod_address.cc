#include "kube/pod_address.h"

#include <algorithm>

namespace vtenant::kube {

std::vector<std::string> PodAddressesOf(const Object& pod) {
  const std::string_view phase = GetString(pod, {"status", "phase"});
  if (phase == "Succeeded" || phase == "Failed") return {};
  std::vector<std::string> addresses;
  if (const rapidjson::Value* ips = Find(pod, {"status", "podIPs"}); ips && ips->IsArray()) {
    for (const rapidjson::Value& entry : ips->GetArray()) {
      const std::string_view ip = GetString(entry, {"ip"});
      if (!ip.empty() && std::find(addresses.begin(), addresses.end(), ip) == addresses.end()) {
        addresses.emplace_back(ip);
      }
    }
  }
  const std::string_view ip = GetString(pod, {"status", "podIP"});
  if (addresses.empty() && !ip.empty()) addresses.emplace_back(ip);
  return addresses;
}

std::vector<ObjectPtr> PodsAt(const Cache& cache, std::string_view address) {
  Result<std::vector<ObjectPtr>> pods = cache.ByIndex(kPodAddressIndex, address);
  return pods.ok() ? std::move(*pods) : std::vector<ObjectPtr>{};
}

}  // namespace vtenant::kube

#include "syncer/reserved_keys.h"

#include <algorithm>

#include "kai/names.h"

namespace vtenant::syncer {
namespace {

// Whether DNS prefix `prefix` is `domain` or a subdomain of it.
bool InDomain(std::string_view prefix, std::string_view domain) {
  if (prefix == domain) return true;
  return prefix.size() > domain.size() && prefix.ends_with(domain) &&
         prefix[prefix.size() - domain.size() - 1] == '.';
}

}  // namespace

bool IsReservedKey(std::string_view key, const KeyExceptions& exceptions) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) {
    // Unprefixed keys: KAI's annotations.
    return key == kai::kPodGroupAnnotation || key.starts_with("runai-");
  }
  const std::string_view prefix = key.substr(0, slash);
  if (InDomain(prefix, "vtenant.io")) return true;
  if (prefix == "runai" || prefix == "run.ai" || prefix.starts_with("runai-") ||
      key == kai::kQueueLabel || key == kai::kStalePodGroupTimestampAnnotation ||
      key == kai::kLastEvictionTimestampAnnotation) {
    return true;
  }
  const bool excepted =
      std::find(exceptions.keys.begin(), exceptions.keys.end(), key) != exceptions.keys.end();
  if (InDomain(prefix, "vtenant.dev")) return !excepted;
  if (InDomain(prefix, "kubernetes.io") || InDomain(prefix, "k8s.io")) {
    return !excepted && std::none_of(exceptions.prefixes.begin(), exceptions.prefixes.end(),
                                     [&](std::string_view p) { return key.starts_with(p); });
  }
  return false;
}

bool IsKubernetesKey(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view prefix = key.substr(0, slash);
  return InDomain(prefix, "kubernetes.io") || InDomain(prefix, "k8s.io");
}

void CopyTenantKeys(const rapidjson::Value* from, rapidjson::Value& to, Allocator& a,
                    const KeyExceptions& exceptions, std::string_view path,
                    DroppedFields* dropped) {
  if (!to.IsObject()) to.SetObject();
  if (from == nullptr || !from->IsObject()) return;
  // Into an empty map the keys of one JSON object go without a search.
  const bool fresh = to.ObjectEmpty();
  for (const auto& m : from->GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (IsReservedKey(key, exceptions)) {
      if (dropped != nullptr) {
        std::string field(path);
        field += "['";
        field += key;
        field += "']";
        dropped->push_back(std::move(field));
      }
      continue;
    }
    if (fresh) {
      to.AddMember(JsonString(key, a), rapidjson::Value(m.value, a), a);
    } else {
      SetMember(to, key, rapidjson::Value(m.value, a), a);
    }
  }
}

}  // namespace vtenant::syncer

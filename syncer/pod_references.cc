#include "syncer/pod_references.h"

#include <string_view>

#include "kube/pod_object_refs.h"

namespace vtenant::syncer {

PodReferences ReferencesOf(const rapidjson::Value& pod) {
  PodReferences refs;
  const rapidjson::Value* spec = kube::Find(pod, {"spec"});
  if (spec == nullptr) return refs;
  kube::ForEachObjectRef(*spec, [&](const kube::PodObjectRef<const rapidjson::Value>& ref) {
    const std::string_view name = ref.Name();
    if (name.empty()) return;
    switch (ref.kind) {
      case kube::ObjectRefKind::kConfigMap:
        refs.config_maps.emplace(name);
        break;
      case kube::ObjectRefKind::kSecret:
        refs.secrets.emplace(name);
        break;
      case kube::ObjectRefKind::kClaim:
        refs.claims.emplace(name);
        break;
      case kube::ObjectRefKind::kResourceClaim:
        refs.resource_claims.emplace(name);
        break;
      case kube::ObjectRefKind::kResourceClaimTemplate:
        refs.claim_templates.emplace(name);
        break;
    }
  });
  // What the walk leaves to the syncer: the claim an inline claim is cloned
  // from, when CheckPod lets it through, and the projected token.
  const rapidjson::Value* volumes = kube::Find(*spec, {"volumes"});
  if (volumes == nullptr || !volumes->IsArray()) return refs;
  for (const rapidjson::Value& v : volumes->GetArray()) {
    for (std::string_view field : {"dataSource", "dataSourceRef"}) {
      const rapidjson::Value* source =
          kube::Find(v, {"ephemeral", "volumeClaimTemplate", "spec", field});
      if (IsSameNamespaceClaim(source)) refs.claims.emplace(kube::GetString(*source, {"name"}));
    }
    const rapidjson::Value* sources = kube::Find(v, {"projected", "sources"});
    if (sources == nullptr || !sources->IsArray()) continue;
    for (const rapidjson::Value& s : sources->GetArray()) {
      if (kube::Find(s, {"serviceAccountToken"}) != nullptr) refs.service_account_token = true;
    }
  }
  return refs;
}

bool IsSameNamespaceClaim(const rapidjson::Value* source) {
  return source != nullptr && source->IsObject() &&
         kube::GetString(*source, {"kind"}) == "PersistentVolumeClaim" &&
         kube::GetString(*source, {"apiGroup"}).empty() &&
         kube::GetString(*source, {"namespace"}).empty() &&
         !kube::GetString(*source, {"name"}).empty();
}

std::vector<std::string> ReferenceIndexValues(const rapidjson::Value& pod) {
  PodReferences refs = ReferencesOf(pod);
  std::string ns(kube::Namespace(pod));
  std::vector<std::string> values;
  for (const std::string& n : refs.config_maps) values.push_back("configmap/" + ns + "/" + n);
  for (const std::string& n : refs.secrets) values.push_back("secret/" + ns + "/" + n);
  for (const std::string& n : refs.claims) values.push_back("pvc/" + ns + "/" + n);
  for (const std::string& n : refs.resource_claims) {
    values.push_back("resourceclaim/" + ns + "/" + n);
  }
  for (const std::string& n : refs.claim_templates) {
    values.push_back("resourceclaimtemplate/" + ns + "/" + n);
  }
  return values;
}

}  // namespace vtenant::syncer

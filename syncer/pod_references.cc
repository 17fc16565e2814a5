#include "syncer/pod_references.h"

#include <string_view>

#include "syncer/pod_schema.h"

namespace vtenant::syncer {
namespace {

void AddName(std::set<std::string>& into, const rapidjson::Value& v,
             std::initializer_list<std::string_view> path) {
  std::string_view name = kube::GetString(v, path);
  if (!name.empty()) into.emplace(name);
}

const rapidjson::Value* Array(const rapidjson::Value& v, std::string_view key) {
  const rapidjson::Value* a = kube::Find(v, {key});
  return a != nullptr && a->IsArray() ? a : nullptr;
}

void AddContainerRefs(const rapidjson::Value& c, PodReferences& refs) {
  if (const rapidjson::Value* env = Array(c, "env")) {
    for (const rapidjson::Value& e : env->GetArray()) {
      AddName(refs.config_maps, e, {"valueFrom", "configMapKeyRef", "name"});
      AddName(refs.secrets, e, {"valueFrom", "secretKeyRef", "name"});
    }
  }
  if (const rapidjson::Value* env_from = Array(c, "envFrom")) {
    for (const rapidjson::Value& e : env_from->GetArray()) {
      AddName(refs.config_maps, e, {"configMapRef", "name"});
      AddName(refs.secrets, e, {"secretRef", "name"});
    }
  }
}

}  // namespace

PodReferences ReferencesOf(const rapidjson::Value& pod) {
  PodReferences refs;
  const rapidjson::Value* spec = kube::Find(pod, {"spec"});
  if (spec == nullptr) return refs;
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
    if (const rapidjson::Value* containers = Array(*spec, list)) {
      for (const rapidjson::Value& c : containers->GetArray()) AddContainerRefs(c, refs);
    }
  }
  if (const rapidjson::Value* volumes = Array(*spec, "volumes")) {
    for (const rapidjson::Value& v : volumes->GetArray()) {
      AddName(refs.config_maps, v, {"configMap", "name"});
      AddName(refs.secrets, v, {"secret", "secretName"});
      AddName(refs.claims, v, {"persistentVolumeClaim", "claimName"});
      for (const VolumeSecretRef& ref : VolumeSecretRefs()) {
        if (ref.member == "secretName") {
          AddName(refs.secrets, v, {ref.type, ref.member});
        } else {
          AddName(refs.secrets, v, {ref.type, ref.member, "name"});
        }
      }
      for (std::string_view field : {"dataSource", "dataSourceRef"}) {
        const rapidjson::Value* source =
            kube::Find(v, {"ephemeral", "volumeClaimTemplate", "spec", field});
        if (IsSameNamespaceClaim(source)) AddName(refs.claims, *source, {"name"});
      }
      const rapidjson::Value* sources = kube::Find(v, {"projected", "sources"});
      if (sources == nullptr || !sources->IsArray()) continue;
      for (const rapidjson::Value& s : sources->GetArray()) {
        AddName(refs.config_maps, s, {"configMap", "name"});
        AddName(refs.secrets, s, {"secret", "name"});
        if (kube::Find(s, {"serviceAccountToken"}) != nullptr) refs.service_account_token = true;
      }
    }
  }
  if (const rapidjson::Value* pull = Array(*spec, "imagePullSecrets")) {
    for (const rapidjson::Value& s : pull->GetArray()) AddName(refs.secrets, s, {"name"});
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
  return values;
}

}  // namespace vtenant::syncer

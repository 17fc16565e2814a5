// PodObjectRefs: where a Pod names other objects of its own namespace
// (ConfigMaps, Secrets, PersistentVolumeClaims, ResourceClaims and their
// templates), in every place the Pod API of v1.37 allows one:
//   - init, regular and ephemeral containers: env[].valueFrom.
//     configMapKeyRef and .secretKeyRef, envFrom[].configMapRef and
//     .secretRef;
//   - volumes: configMap, secret, persistentVolumeClaim, the Secrets of
//     in-tree volume sources (kVolumeSecretRefs), and projected sources'
//     configMap and secret;
//   - imagePullSecrets;
//   - resourceClaims[]: resourceClaimName (a ResourceClaim) or
//     resourceClaimTemplateName (a ResourceClaimTemplate).
// One walk for every program that follows or rewrites these names: the
// syncer copies what a pod names to the host and renames the references
// on the host copy; the scheduler waits for the ConfigMaps a pod needs to
// start. (An inline ephemeral claim's data source names a claim too; who
// may follow it is the syncer's policy, so it is not walked here.)
#pragma once

#include <string_view>

#include "kube/object.h"

namespace vtenant::kube {

enum class ObjectRefKind {
  kConfigMap,
  kSecret,
  kClaim,  // a PersistentVolumeClaim
  kResourceClaim,
  kResourceClaimTemplate,
};

// The in-tree volume sources that name a Secret of the pod's namespace
// beside their own data: `member` is a Secret's name ("secretName") or an
// object with one ("secretRef", "nodePublishSecretRef").
struct VolumeSecretRef {
  std::string_view type;
  std::string_view member;
};
inline constexpr VolumeSecretRef kVolumeSecretRefs[] = {
    {"csi", "nodePublishSecretRef"}, {"cephfs", "secretRef"},     {"rbd", "secretRef"},
    {"iscsi", "secretRef"},          {"flexVolume", "secretRef"}, {"scaleIO", "secretRef"},
    {"storageos", "secretRef"},      {"azureFile", "secretName"}};

// One reference: member `member` of `holder` is the name. `V` is
// rapidjson::Value to rename in place, const rapidjson::Value to read.
template <typename V>
struct PodObjectRef {
  ObjectRefKind kind;
  V* holder;
  std::string_view member;
  // The reference says optional: true (the pod starts without the object).
  bool optional = false;
  // The pod volume the reference is part of; "" for env, envFrom,
  // imagePullSecrets and resourceClaims.
  std::string_view volume;

  // The name, "" when absent or not a string.
  std::string_view Name() const { return GetString(*holder, {member}); }
};

namespace internal {
template <typename V, typename Visit>
void WalkObjectRefs(V& spec, Visit& visit);
}  // namespace internal

// Calls visit(PodObjectRef<const rapidjson::Value>) for each reference
// `spec` (a pod's spec) makes, containers first (in the order above), then
// volumes, then imagePullSecrets, then resourceClaims; for every holder that
// is an object, whether or not it has a name (a resourceClaims entry: for
// each of its two members it has).
template <typename Visit>
void ForEachObjectRef(const rapidjson::Value& spec, Visit&& visit) {
  internal::WalkObjectRefs<const rapidjson::Value>(spec, visit);
}

// The same with PodObjectRef<rapidjson::Value>, to rename: `visit` may
// change the name's value, nothing else.
template <typename Visit>
void ForEachObjectRef(rapidjson::Value& spec, Visit&& visit) {
  internal::WalkObjectRefs<rapidjson::Value>(spec, visit);
}

namespace internal {

template <typename V, typename Visit>
void WalkObjectRefs(V& spec, Visit& visit) {
  // The member `key` of `parent` when it is of the type `is` tests for.
  auto member_if = [](V& parent, std::string_view key, bool (rapidjson::Value::*is)() const) -> V* {
    if (!parent.IsObject()) return nullptr;
    auto it = parent.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
    return it != parent.MemberEnd() && (it->value.*is)() ? &it->value : nullptr;
  };
  auto object_at = [&](V& parent, std::string_view key) {
    return member_if(parent, key, &rapidjson::Value::IsObject);
  };
  auto array_at = [&](V& parent, std::string_view key) {
    return member_if(parent, key, &rapidjson::Value::IsArray);
  };
  auto ref = [&](ObjectRefKind kind, V* holder, std::string_view member, std::string_view volume) {
    if (holder == nullptr) return;
    auto optional = holder->FindMember("optional");
    visit(PodObjectRef<V>{kind, holder, member,
                          optional != holder->MemberEnd() && optional->value.IsTrue(), volume});
  };
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
    V* containers = array_at(spec, list);
    if (containers == nullptr) continue;
    for (V& c : containers->GetArray()) {
      if (V* env = array_at(c, "env")) {
        for (V& e : env->GetArray()) {
          V* from = object_at(e, "valueFrom");
          if (from == nullptr) continue;
          ref(ObjectRefKind::kConfigMap, object_at(*from, "configMapKeyRef"), "name", "");
          ref(ObjectRefKind::kSecret, object_at(*from, "secretKeyRef"), "name", "");
        }
      }
      if (V* env_from = array_at(c, "envFrom")) {
        for (V& e : env_from->GetArray()) {
          ref(ObjectRefKind::kConfigMap, object_at(e, "configMapRef"), "name", "");
          ref(ObjectRefKind::kSecret, object_at(e, "secretRef"), "name", "");
        }
      }
    }
  }
  if (V* volumes = array_at(spec, "volumes")) {
    for (V& v : volumes->GetArray()) {
      const std::string_view volume = GetString(v, {"name"});
      ref(ObjectRefKind::kConfigMap, object_at(v, "configMap"), "name", volume);
      ref(ObjectRefKind::kSecret, object_at(v, "secret"), "secretName", volume);
      ref(ObjectRefKind::kClaim, object_at(v, "persistentVolumeClaim"), "claimName", volume);
      for (const VolumeSecretRef& secret : kVolumeSecretRefs) {
        V* source = object_at(v, secret.type);
        if (source == nullptr) continue;
        if (secret.member == "secretName") {
          ref(ObjectRefKind::kSecret, source, secret.member, volume);
        } else {
          ref(ObjectRefKind::kSecret, object_at(*source, secret.member), "name", volume);
        }
      }
      V* projected = object_at(v, "projected");
      V* sources = projected != nullptr ? array_at(*projected, "sources") : nullptr;
      if (sources == nullptr) continue;
      for (V& s : sources->GetArray()) {
        ref(ObjectRefKind::kConfigMap, object_at(s, "configMap"), "name", volume);
        ref(ObjectRefKind::kSecret, object_at(s, "secret"), "name", volume);
      }
    }
  }
  if (V* pull = array_at(spec, "imagePullSecrets")) {
    for (V& s : pull->GetArray()) {
      if (s.IsObject()) ref(ObjectRefKind::kSecret, &s, "name", "");
    }
  }
  if (V* claims = array_at(spec, "resourceClaims")) {
    for (V& c : claims->GetArray()) {
      if (!c.IsObject()) continue;
      if (c.HasMember("resourceClaimName")) {
        ref(ObjectRefKind::kResourceClaim, &c, "resourceClaimName", "");
      }
      if (c.HasMember("resourceClaimTemplateName")) {
        ref(ObjectRefKind::kResourceClaimTemplate, &c, "resourceClaimTemplateName", "");
      }
    }
  }
}

}  // namespace internal
}  // namespace vtenant::kube

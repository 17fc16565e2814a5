// DataTranslator: ConfigMaps and Secrets to their host copies
// (object_translators.h says what every host copy shares).
//
// What a copy carries: the metadata every copy has; data, binaryData (a
// ConfigMap's) and immutable; a Secret's type as the host may hold it:
//   Opaque, kubernetes.io/dockerconfigjson, kubernetes.io/dockercfg,
//   kubernetes.io/tls, kubernetes.io/basic-auth, kubernetes.io/ssh-auth:
//     kept (pods and the kubelet read them as data);
//   kubernetes.io/service-account-token: Opaque, so the host's token
//     controller never fills it with a token of the host (its
//     kubernetes.io/service-account.name annotation is reserved and left
//     out as well); the virtual token it holds reaches the pod as data;
//   bootstrap.kubernetes.io/token and any other type: Opaque (a host
//     component acting on a type must never act on a tenant's Secret).
// Any other member is left out and reported.
#pragma once

#include <optional>
#include <string_view>

#include "kube/object.h"
#include "syncer/object_translators.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// The type a host copy of a Secret of `type` gets (rules above).
std::string_view HostSecretType(std::string_view type);

// ToHost, then Update of the host's copy: the shape every translator has,
// a parallel on purpose (each kind's rules are its own).
class DataTranslator {
 public:
  explicit DataTranslator(const SyncerConfig& config) : config_(config) {}

  // The host copy of virtual ConfigMap or Secret `virtual_object`; members
  // left out go to `notes` when not null.
  kube::Object ToHost(const rapidjson::Value& virtual_object,
                      TranslationNotes* notes = nullptr) const;

  // `host` with the labels, annotations, data, binaryData and immutable of
  // `desired` (a ToHost answer); nullopt when it has them.
  std::optional<kube::Object> Update(const rapidjson::Value& desired,
                                     const rapidjson::Value& host) const;

  // Whether `host` must be deleted and created again to become `desired`:
  // the type differs (immutable), or `host` is immutable and `desired`
  // differs in data, binaryData or is not immutable.
  bool NeedsReplace(const rapidjson::Value& desired, const rapidjson::Value& host) const;

 private:
  const SyncerConfig& config_;
};

}  // namespace vtenant::syncer

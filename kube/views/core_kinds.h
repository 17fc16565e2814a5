// Small core kinds: Namespace, ConfigMap, Secret, Service, Event, Lease.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/views/object_view.h"

namespace vtenant::kube {

template <class Base>
class NamespaceAccessors : public Base {
 public:
  using Base::Base;
  // Active or Terminating.
  std::string_view phase() const { return GetString(this->json(), {"status", "phase"}); }
};
using NamespaceView = NamespaceAccessors<ObjectView>;
using MutableNamespace = NamespaceAccessors<MutableObjectView>;

template <class Base>
class ConfigMapAccessors : public Base {
 public:
  using Base::Base;
  std::optional<std::string_view> data(std::string_view key) const {
    const rapidjson::Value* v = Find(this->json(), {"data", key});
    if (v == nullptr || !v->IsString()) return std::nullopt;
    return std::string_view(v->GetString(), v->GetStringLength());
  }
};
using ConfigMapView = ConfigMapAccessors<ObjectView>;
class MutableConfigMap : public ConfigMapAccessors<MutableObjectView> {
 public:
  using ConfigMapAccessors::ConfigMapAccessors;
  void SetData(std::string_view key, std::string_view value) {
    SetString(doc(), {"data"}, key, value);
  }
};

// Secret data decoded from base64 (stringData is write-only on the server).
Result<std::optional<std::string>> SecretData(const rapidjson::Value& secret, std::string_view key);

template <class Base>
class SecretAccessors : public Base {
 public:
  using Base::Base;
  std::string_view type() const { return GetString(this->json(), {"type"}); }
  // The decoded value of data[key]; nullopt when absent; InvalidArgument when
  // it is not base64.
  Result<std::optional<std::string>> data(std::string_view key) const {
    return SecretData(this->json(), key);
  }
};
using SecretView = SecretAccessors<ObjectView>;
class MutableSecret : public SecretAccessors<MutableObjectView> {
 public:
  using SecretAccessors::SecretAccessors;
  // Stores `bytes` base64-encoded under data[key].
  void SetData(std::string_view key, std::string_view bytes);
};

template <class Base>
class ServiceAccessors : public Base {
 public:
  using Base::Base;
  std::string_view cluster_ip() const { return GetString(this->json(), {"spec", "clusterIP"}); }
  std::string_view type() const { return GetString(this->json(), {"spec", "type"}); }
  const rapidjson::Value* ports() const { return Find(this->json(), {"spec", "ports"}); }
  const rapidjson::Value* selector() const { return Find(this->json(), {"spec", "selector"}); }
};
using ServiceView = ServiceAccessors<ObjectView>;
using MutableService = ServiceAccessors<MutableObjectView>;

template <class Base>
class EventAccessors : public Base {
 public:
  using Base::Base;
  std::string_view reason() const { return GetString(this->json(), {"reason"}); }
  std::string_view message() const { return GetString(this->json(), {"message"}); }
  // Normal or Warning.
  std::string_view type() const { return GetString(this->json(), {"type"}); }
  int64_t count() const { return GetInt(this->json(), {"count"}, 1); }
  std::string_view involved_kind() const {
    return GetString(this->json(), {"involvedObject", "kind"});
  }
  std::string_view involved_name() const {
    return GetString(this->json(), {"involvedObject", "name"});
  }
  std::string_view involved_namespace() const {
    return GetString(this->json(), {"involvedObject", "namespace"});
  }
  std::string_view involved_uid() const {
    return GetString(this->json(), {"involvedObject", "uid"});
  }
};
using EventView = EventAccessors<ObjectView>;

template <class Base>
class LeaseAccessors : public Base {
 public:
  using Base::Base;
  std::string_view holder_identity() const {
    return GetString(this->json(), {"spec", "holderIdentity"});
  }
  int64_t lease_duration_seconds() const {
    return GetInt(this->json(), {"spec", "leaseDurationSeconds"});
  }
  std::string_view renew_time() const { return GetString(this->json(), {"spec", "renewTime"}); }
  int64_t lease_transitions() const { return GetInt(this->json(), {"spec", "leaseTransitions"}); }
};
using LeaseView = LeaseAccessors<ObjectView>;

}  // namespace vtenant::kube

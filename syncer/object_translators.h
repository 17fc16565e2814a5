// Translators of what pods refer to: ConfigMaps, Secrets,
// PersistentVolumeClaims and Services, each virtual object to its host copy
// (ToHost) and the write that brings a host copy up to date (Update,
// nullopt when it already is). Host copies are named HostName(name, ns,
// tenant), carry the tenant's labels and the virtual name, namespace and
// UID annotations, and no ownerReferences.
#pragma once

#include <initializer_list>
#include <optional>
#include <string_view>

#include "kube/object.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// The host metadata every synced object shares, in a new object of
// `virtual_object`'s apiVersion and kind.
kube::Object HostObjectBase(const rapidjson::Value& virtual_object, const SyncerConfig& config);

// `host` with the labels, annotations and `fields` (top-level members, set
// or removed) of `desired`, a translator's ToHost; nullopt when nothing
// differs. Everything else the host holds (resourceVersion, what the host
// filled in) is kept.
std::optional<kube::Object> WithFields(const rapidjson::Value& desired,
                                       const rapidjson::Value& host,
                                       std::initializer_list<std::string_view> fields);

// ConfigMaps and Secrets: labels, annotations and every data field (data,
// binaryData, type, immutable) copied. A Secret's type is immutable on the
// host, so a changed type is a replacement (Update answers nullopt and
// NeedsReplace true).
class DataTranslator {
 public:
  explicit DataTranslator(const SyncerConfig& config) : config_(config) {}
  kube::Object ToHost(const rapidjson::Value& virtual_object) const;
  std::optional<kube::Object> Update(const rapidjson::Value& virtual_object,
                                     const rapidjson::Value& host) const;
  bool NeedsReplace(const rapidjson::Value& virtual_object, const rapidjson::Value& host) const;

 private:
  const SyncerConfig& config_;
};

// PersistentVolumeClaims: the spec without volumeName (the host binds its
// own volume); only labels, annotations and a grown storage request update.
class ClaimTranslator {
 public:
  explicit ClaimTranslator(const SyncerConfig& config) : config_(config) {}
  kube::Object ToHost(const rapidjson::Value& virtual_object) const;
  std::optional<kube::Object> Update(const rapidjson::Value& virtual_object,
                                     const rapidjson::Value& host) const;

 private:
  const SyncerConfig& config_;
};

// Whether a Service selects no pods (no spec.selector, or an empty one):
// then nothing on the host fills its endpoints, and the ones written by
// hand in the virtual cluster (Endpoints, EndpointSlices) are carried over.
bool SelectsNoPods(const rapidjson::Value& service);

// Services: ports, type, sessionAffinity and publishNotReadyAddresses
// copied; cluster IPs and node ports left to the host; the selector made to
// match the host pods of the same virtual namespace only (so the host's
// endpoints controller fills in the endpoints). A headless Service stays
// headless.
class ServiceTranslator {
 public:
  explicit ServiceTranslator(const SyncerConfig& config) : config_(config) {}
  kube::Object ToHost(const rapidjson::Value& virtual_object) const;
  std::optional<kube::Object> Update(const rapidjson::Value& virtual_object,
                                     const rapidjson::Value& host) const;

 private:
  const SyncerConfig& config_;
};

// Endpoints of a Service without a selector, which the tenant manages by
// hand (an external database, a pod in another namespace): subsets copied
// with every address kept, since the host has no controller that could
// compute them. An address's targetRef to a virtual pod points at that
// pod's host copy; other targetRefs are dropped (they name virtual objects
// the host does not have). The host's EndpointSlice mirroring makes slices
// of the copy, as it does for any selector-less Service.
class EndpointsTranslator {
 public:
  explicit EndpointsTranslator(const SyncerConfig& config) : config_(config) {}
  kube::Object ToHost(const rapidjson::Value& virtual_object) const;
  std::optional<kube::Object> Update(const rapidjson::Value& virtual_object,
                                     const rapidjson::Value& host) const;

 private:
  const SyncerConfig& config_;
};

}  // namespace vtenant::syncer

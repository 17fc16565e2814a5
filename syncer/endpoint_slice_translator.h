// EndpointSliceTranslator: EndpointSlices (discovery.k8s.io/v1) a team
// writes by hand for a Service without a selector, to their host copies.
//
// Only hand-written slices travel: the virtual cluster's endpointslice
// controller makes slices for Services with a selector, and the host's own
// controller makes them again for the host Service from the host pods; its
// endpointslice mirroring controller makes slices of hand-written Endpoints,
// and the host mirrors the Endpoints copy (EndpointsTranslator) itself.
// Copying either kind would give the host Service every address twice.
#pragma once

#include <optional>
#include <string_view>

#include "kube/object.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// The label that ties a slice to its Service, and the one that says which
// controller manages it (discovery.k8s.io well-known labels).
inline constexpr char kServiceNameLabel[] = "kubernetes.io/service-name";
inline constexpr char kSliceManagedByLabel[] = "endpointslice.kubernetes.io/managed-by";

class EndpointSliceTranslator {
 public:
  explicit EndpointSliceTranslator(const SyncerConfig& config) : config_(config) {}

  // Whether virtual `slice` gets a host copy: it names a Service
  // (kubernetes.io/service-name), no Kubernetes controller manages it
  // (managed-by absent or neither endpointslice-controller.k8s.io nor
  // endpointslicemirroring-controller.k8s.io), and `service`, the virtual
  // Service it names (nullptr when there is none), exists without a
  // selector and is not the virtual API server's own (default/kubernetes).
  static bool Wanted(const rapidjson::Value& slice, const rapidjson::Value* service);

  // The name of the virtual Service `slice` belongs to; nullopt without the label.
  static std::optional<std::string_view> ServiceOf(const rapidjson::Value& slice);

  // The host copy: the host name and metadata of every synced object, the
  // service-name label naming the host Service, addressType, ports and
  // endpoints copied with their addresses (pod or host IPs, valid on the
  // host as they are), conditions, nodeName, zone and hints. An endpoint's
  // targetRef to a virtual pod names its host pod; other targetRefs are
  // dropped (they name virtual objects the host does not have).
  kube::Object ToHost(const rapidjson::Value& virtual_slice) const;

  // `host` with the labels, annotations, ports and endpoints of ToHost;
  // nullopt when it already has them. addressType is immutable on both
  // sides, so it never needs an update.
  std::optional<kube::Object> Update(const rapidjson::Value& virtual_slice,
                                     const rapidjson::Value& host) const;

 private:
  const SyncerConfig& config_;
};

}  // namespace vtenant::syncer

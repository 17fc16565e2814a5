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
#include "syncer/endpoint_addresses.h"
#include "syncer/object_translators.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// The label that ties a slice to its Service, and the one that says which
// controller manages it (discovery.k8s.io well-known labels).
inline constexpr char kServiceNameLabel[] = "kubernetes.io/service-name";
inline constexpr char kSliceManagedByLabel[] = "endpointslice.kubernetes.io/managed-by";
// The manager every host copy names: the syncer, whatever the virtual slice
// said, so no host controller takes a copy for its own.
inline constexpr char kSyncerSliceManager[] = "vtenant-syncer.vtenant.io";

// ToHost, then Update of the host's copy: the shape every translator has,
// a parallel on purpose (each kind's rules are its own).
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

  // The host copy: the host name and metadata of every synced object,
  // kubernetes.io/service-name naming the host Service and
  // endpointslice.kubernetes.io/managed-by the syncer (both whatever the
  // virtual slice said); addressType; ports (name, protocol, port,
  // appProtocol); endpoints with their conditions, hostname, nodeName, zone
  // and hints, their addresses as endpoint_addresses.h allows them against
  // `network` (others are left out with a Warning Event
  // EndpointAddressNotAllowed; an endpoint left without addresses goes),
  // a targetRef made the tenant's host pod or dropped. A slice of any
  // addressType but IPv4 or IPv6 (FQDN) is refused: a name is resolved by
  // whoever follows it, on the tenant's behalf. Refusals, warnings and
  // members left out go to `notes` when not null.
  kube::Object ToHost(const rapidjson::Value& virtual_slice, const HostNetwork& network,
                      TranslationNotes* notes = nullptr) const;

  // `host` with the labels, annotations, ports and endpoints of `desired`
  // (a ToHost answer); nullopt when it already has them. addressType is
  // immutable on both sides, so it never needs an update.
  std::optional<kube::Object> Update(const rapidjson::Value& desired,
                                     const rapidjson::Value& host) const;

 private:
  const SyncerConfig& config_;
};

}  // namespace vtenant::syncer

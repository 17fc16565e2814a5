// EndpointsTranslator: the Endpoints of a Service without a selector, which
// the tenant manages by hand (an external database, a pod in another
// namespace), to their host copies (object_translators.h says what every
// host copy shares). The host has no controller that could compute them,
// and its EndpointSlice mirroring makes slices of the copy, as it does for
// any selector-less Service.
//
// subsets, member by member: ports (name, port, protocol, appProtocol);
// addresses and notReadyAddresses, each address's ip, hostname and
// nodeName kept when endpoint_addresses.h allows the ip (others are left
// out, with a Warning Event EndpointAddressNotAllowed on the virtual
// Endpoints), its targetRef made the tenant's host pod or dropped. Any
// other member is left out and reported.
#pragma once

#include <optional>

#include "kube/object.h"
#include "syncer/endpoint_addresses.h"
#include "syncer/object_translators.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// ToHost, then Update of the host's copy: the shape every translator has,
// a parallel on purpose (each kind's rules are its own).
class EndpointsTranslator {
 public:
  explicit EndpointsTranslator(const SyncerConfig& config) : config_(config) {}

  // The host copy of virtual Endpoints `virtual_object`, its addresses
  // judged against `network`; warnings and the members left out go to
  // `notes` when not null.
  kube::Object ToHost(const rapidjson::Value& virtual_object, const HostNetwork& network,
                      TranslationNotes* notes = nullptr) const;

  // `host` with the labels, annotations and subsets of `desired` (a ToHost
  // answer); nullopt when it has them.
  std::optional<kube::Object> Update(const rapidjson::Value& desired,
                                     const rapidjson::Value& host) const;

 private:
  const SyncerConfig& config_;
};

}  // namespace vtenant::syncer

// What a Service's endpoints on the host may point at.
//
// The Endpoints and EndpointSlices a tenant writes by hand (for a Service
// without a selector) say where the host's proxies send the traffic of the
// tenant's host Service, and anything that follows the Service (a load
// balancer, when the Tenant allows one) goes there too. So an address is
// kept on the host copy only when it is not, as far as the syncer can tell,
// somewhere the tenant's own pods must not reach:
//   - not an IP address at all;
//   - a special address: unspecified, loopback, link-local (169.254.0.0/16,
//     fe80::/10: where cloud metadata services answer), multicast,
//     reserved (240.0.0.0/4), and the metadata addresses outside
//     link-local the syncer knows (AWS's fd00:ec2::254, Alibaba's
//     100.100.100.200);
//   - an address of a host Node (status.addresses): its kubelet, its
//     services, and where the control plane often listens;
//   - inside a host Node's pod range (spec.podCIDRs) without being the
//     address of one of this tenant's host pods: another tenant's pod.
// What the syncer cannot classify stays a residual risk, for the tenant's
// NetworkPolicy (egress) to cover: pod addresses where the network plugin
// publishes no podCIDRs on Nodes, the service range, machines of the
// platform that are not Nodes. A tenant pod's address counts as its own
// when the copy is written; if that pod goes and its address is reused,
// the copy keeps it until its next write (an event of the virtual object,
// or the periodic resync).
//
// A targetRef always stays inside the tenant: one to a Pod names that
// pod's host copy (the tenant's host namespace, HostName of the name and
// the ref's namespace, else the object's own), whatever namespace it gave;
// one to anything else is dropped (it names a virtual object the host does
// not have).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/ip_address.h"
#include "kube/object.h"
#include "syncer/json_edit.h"
#include "syncer/object_translators.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// The host's addresses as the syncer sees them, to judge an endpoint
// address by (rules above).
class HostNetwork {
 public:
  // Node addresses and pod ranges of host `node`.
  void AddNode(const rapidjson::Value& node);
  // The addresses of `pod`, one of the tenant's host pods.
  void AddTenantPod(const rapidjson::Value& pod);
  // Whether any Node added has a pod range: only then do the tenant's pods
  // matter.
  bool HasPodRanges() const { return !pod_ranges_.empty(); }

  // Why `address` may not be an endpoint address of a tenant's host
  // Service ("an address of host Node l40s-0"), or nullopt when it may.
  std::optional<std::string> WhyNot(std::string_view address) const;

 private:
  std::map<IpAddress, std::string> node_addresses_;  // → node name
  std::vector<std::pair<IpRange, std::string>> pod_ranges_;
  std::set<IpAddress> tenant_pods_;
};

// The reason of the Warning Event for addresses left off a host copy.
inline constexpr char kEndpointAddressNotAllowed[] = "EndpointAddressNotAllowed";

// The addresses one ToHost leaves off its host copy, told to the team as a
// single Warning Event EndpointAddressNotAllowed listing each with why.
// The Endpoints and EndpointSlice translators judge their addresses so.
class LeftOffAddresses {
 public:
  // Whether `address` may stay on the host copy, judged against `network`;
  // when not, it joins the list.
  bool Keep(std::string_view address, const HostNetwork& network);

  // Adds the warning to `notes` (when not null) if any address was left off.
  void Tell(TranslationNotes* notes) const;

 private:
  std::string list_;  // "address (why), ..."
};

// The host targetRef for `ref`, a targetRef of an endpoint of an object in
// virtual namespace `ns`: {kind Pod, the host namespace, the host pod's
// name} for a Pod, nullopt for anything else (rules above).
std::optional<rapidjson::Value> HostTargetRef(const rapidjson::Value& ref, std::string_view ns,
                                              const SyncerConfig& config, Allocator& a);

// Sets the targetRef of `host_endpoint` to HostTargetRef of `endpoint`'s
// targetRef, when it has one and that one is kept; else leaves it unset.
// (An Endpoints address and an EndpointSlice endpoint both carry one.)
void SetHostTargetRef(const rapidjson::Value& endpoint, rapidjson::Value& host_endpoint,
                      std::string_view ns, const SyncerConfig& config, Allocator& a);

}  // namespace vtenant::syncer

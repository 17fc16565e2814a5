// ServiceTranslator: Services to their host copies (object_translators.h
// says what every host copy shares).
//
// The type, as the Tenant allows (spec.isolation.allowedServiceTypes,
// SyncerConfig::allowed_service_types; ClusterIP always):
//   ClusterIP: always;
//   NodePort, LoadBalancer: when allowed. Otherwise the host Service is of
//     the widest type that is (a LoadBalancer becomes a NodePort when only
//     that is allowed, else ClusterIP), still reachable inside the cluster,
//     and a Warning Event ServiceTypeNotAllowed on the virtual Service says
//     so. A LoadBalancer brings its node ports with it, as everywhere;
//   ExternalName: refused (Warning Event ServiceTypeNotAllowed, no host
//     copy). It is a DNS alias in the host's cluster DNS, and host
//     components that follow it (ingress controllers, meshes) would reach,
//     on the tenant's behalf, whatever name it gives; pods reach the
//     tenant's Services through the environment the syncer gives them, not
//     the host's DNS, so nothing is lost.
// The spec, member by member:
//   ports (name, protocol, appProtocol, port, targetPort), sessionAffinity,
//     sessionAffinityConfig, publishNotReadyAddresses, ipFamilyPolicy,
//     internalTrafficPolicy, trafficDistribution: kept;
//   selector: kept and narrowed to the host pods of the same virtual
//     namespace (vtenant.io/tenant, vtenant.io/virtual-namespace);
//   clusterIP "None" (headless): kept;
//   any other clusterIP: asked for when it is in the dynamic band of the
//     host's Service range (SyncerConfig::service_range, service_band.h), which
//     the virtual API server shares and picks from as the host would; the
//     Service then has one address on both sides without being created
//     again (service_address_syncer.h). When the host refuses it (another
//     holds it), the copy is created without (WithoutClusterIP) and the
//     host picks. Never one of the static band, which the platform gives
//     out by hand and counts on finding free, nor one outside the range;
//   clusterIPs, ipFamilies, ports' nodePort and healthCheckNodePort: the
//     host allocates its own (a tenant picking node ports could take ports
//     the whole cluster shares);
//   externalIPs: never (Warning Event ServiceFieldNotAllowed): traffic to
//     any address, anyone's, would be captured by the host's proxies;
//   externalTrafficPolicy: with a host type of NodePort or LoadBalancer;
//   loadBalancerSourceRanges, allocateLoadBalancerNodePorts: with a host
//     type of LoadBalancer (they only narrow what it exposes);
//   loadBalancerIP, loadBalancerClass: never (with a host type of
//     LoadBalancer a Warning Event ServiceFieldNotAllowed says so; on any
//     other host type they mean nothing and go without a word): the first
//     names an address that may be another's, the second hands the Service
//     to a load balancer the platform may keep for itself; the host's
//     default picks both;
//   any other member: left out and reported.
// Annotations: only those on ServiceAnnotationAllowlist (the host's
// controllers read a Service's annotations; cloud and load-balancer
// annotations name subnets, addresses, certificates and DNS zones).
// Labels: every key not reserved.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "kube/object.h"
#include "syncer/object_translators.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// Whether a Service selects no pods (no spec.selector, or an empty one):
// then nothing on the host fills its endpoints, and the ones written by
// hand in the virtual cluster (Endpoints, EndpointSlices) are carried over.
bool SelectsNoPods(const rapidjson::Value& service);

// The annotations a host Service of `host_type` keeps:
//   every type: service.kubernetes.io/topology-mode and its predecessor
//     service.kubernetes.io/topology-aware-hints (how the host routes to
//     the Service's own endpoints);
//   LoadBalancer, besides: the switches between an internal and an
//     external load balancer and its health check and backend protocol, of
//     the three large clouds:
//       service.beta.kubernetes.io/aws-load-balancer-internal,
//       service.beta.kubernetes.io/aws-load-balancer-scheme,
//       service.beta.kubernetes.io/aws-load-balancer-backend-protocol,
//       service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled,
//       networking.gke.io/load-balancer-type,
//       service.beta.kubernetes.io/azure-load-balancer-internal,
//       service.beta.kubernetes.io/azure-load-balancer-health-probe-request-path.
// Never: annotations that name an existing address, subnet, security
// group, certificate, IP pool or DNS record (AWS eip-allocations, subnets,
// security-groups, ssl-cert; Azure pip-name, load-balancer-ipv4; MetalLB,
// Cilium and kube-vip pools and addresses; external-dns hostnames), nor
// those of ingress controllers and meshes.
const std::set<std::string, std::less<>>& ServiceAnnotationAllowlist(std::string_view host_type);

// ToHost, then Update of the host's copy: the shape every translator has,
// a parallel on purpose (each kind's rules are its own).
class ServiceTranslator {
 public:
  explicit ServiceTranslator(const SyncerConfig& config) : config_(config) {}

  // Why virtual Service `service` gets no host copy (an ExternalName), or
  // nullopt.
  std::optional<Refusal> Check(const rapidjson::Value& service) const;

  // The type the host copy of a Service of virtual type `type` has.
  std::string HostType(std::string_view type) const;

  // The host copy of virtual Service `virtual_object`; a refusal, warnings
  // and the members left out go to `notes` when not null.
  kube::Object ToHost(const rapidjson::Value& virtual_object,
                      TranslationNotes* notes = nullptr) const;

  // `desired` (a ToHost answer) without the cluster IP it asks for, for
  // the host to pick one; nullopt when it asks for none (or is headless).
  static std::optional<kube::Object> WithoutClusterIP(const rapidjson::Value& desired);

  // `host` with the labels, annotations, type, selector, ports (node ports
  // aside) and the other spec members ToHost sets of `desired` (a ToHost
  // answer), but for ipFamilyPolicy, which like the cluster IPs is set only
  // at creation; nullopt when it has them. What the host allocated (cluster
  // IPs, node ports) is kept.
  std::optional<kube::Object> Update(const rapidjson::Value& desired,
                                     const rapidjson::Value& host) const;

 private:
  // The cluster IP of virtual spec `vspec` the host copy asks for (see
  // above), or nullopt.
  std::optional<std::string> ClusterIPToAsk(const rapidjson::Value& vspec) const;

  const SyncerConfig& config_;
};

}  // namespace vtenant::syncer

// The host Service in front of a virtual cluster's DNS server
// (dns/cluster_dns.h), so the tenant's pods reach it on port 53 as resolv.conf
// requires: Service `vtenant-dns` in the tenant's host namespace, UDP port
// 53, no selector, and an EndpointSlice of the syncer's own naming the
// node's address and the port the syncer's DNS socket is bound to there
// (pod_endpoints.h). kube-proxy on the node translates the cluster IP to
// it, inside the node's namespace; the pods' dnsConfig names the cluster
// IP (SyncerConfig::cluster_dns).
//
// The name cannot be a synced Service's (those carry "-x-" or are 63
// characters long, names.h), and neither object carries the labels the
// syncer's host caches select (vtenant.io/managed-by), so no copier takes
// them for an orphan of the virtual cluster.
#pragma once

#include <string>

#include "base/status.h"
#include "kube/client.h"
#include "kube/object.h"

namespace vtenant::syncer {

inline constexpr char kClusterDnsServiceName[] = "vtenant-dns";

// The Service and its EndpointSlice for `host_namespace`, with the DNS
// socket at `node_address`:`port` (UDP). Pure.
kube::Object ClusterDnsService(const std::string& host_namespace);
kube::Object ClusterDnsEndpointSlice(const std::string& host_namespace,
                                     const std::string& node_address, int port);

// Creates both unless they exist, points an existing slice at
// `node_address`:`port` when it names another, and returns the Service's
// cluster IP. Uses only what the syncer's host role allows (create, list,
// update; no get).
Result<std::string> EnsureClusterDnsService(kube::Client& host, const std::string& host_namespace,
                                            const std::string& node_address, int port);

}  // namespace vtenant::syncer

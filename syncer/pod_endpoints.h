// The endpoints a tenant's pods reach of their own virtual cluster when
// they run on a node in a network namespace of its own (the local
// environment's real node, localenv/real_node.h), where the machine's
// loopback, on which the virtual API server listens, does not exist.
//
// The syncer opens them inside that namespace (setns, socket, setns back:
// a socket keeps the namespace it was made in), so nothing listens on the
// machine's network: a TCP listener at the node's address that relays
// each connection to the virtual API server on loopback, and nothing else:
// the relay's one target is the address of the syncer's own virtual API
// server, so no other loopback service (the host's etcd, another tenant's
// API server) is reachable through it. Pods are told that address as
// KUBERNETES_SERVICE_HOST/PORT (--virtual-service-host/-port), and the
// virtual API server's certificate names it (the operator's
// --pod-address). And a UDP socket at the node's address on which the
// virtual cluster's DNS (dns/cluster_dns.h) answers; pods reach it on port 53
// through a host Service (cluster_dns_service.h) that kube-proxy on the
// node translates to it.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "dns/cluster_dns.h"
#include "kube/manager.h"

namespace vtenant::syncer {

// Where the relay connects: the virtual API server's host and port, from
// its kubeconfig's server URL ("https://127.0.0.1:40815"; port 443 when
// none is named). Only a numeric loopback address is relayed, so the
// relay can never lead anywhere but this machine's loopback.
// InvalidArgument naming the URL otherwise.
Result<std::pair<std::string, int>> ApiRelayTarget(std::string_view server_url);

// Opens the relay's listener at `listen_address` ("10.87.0.2:40815")
// inside the network namespace `netns` and adds a runnable to `manager`
// that relays its connections to `target` until the manager stops. Fails
// when the namespace or the address is not there (the syncer then exits
// and its supervisor starts it again after a backoff).
Status AddPodApiRelay(kube::Manager& manager, const std::string& netns,
                      const std::string& listen_address, std::pair<std::string, int> target);

// Opens a UDP socket at `listen_address` inside `netns` and adds a
// runnable to `manager` that answers each query on it with
// dns::AnswerClusterDnsFor(`check`, `lookup`, `options`) until the manager
// stops: every pod of the node reaches the socket, `check` says which are
// answered. Fails as AddPodApiRelay does.
Status AddPodDnsServer(kube::Manager& manager, const std::string& netns,
                       const std::string& listen_address, dns::AskerCheck check,
                       dns::ServiceAddressLookup lookup, dns::ClusterDnsOptions options);

}  // namespace vtenant::syncer

// `vtenant cluster-dns`: the host cluster's DNS for the pods of the local
// environment's real node, as CoreDNS answers a real cluster's pods
// (dns/cluster_dns.h: A records of ClusterIP Services, nothing forwarded),
// so that a pod there, the chart's operator for one, reaches a Service by
// name. A tenant's pods (those the syncer made) are refused. The
// supervisor runs it as a component of the node:
//
//   vtenant --kubeconfig HOST cluster-dns --netns NAME --listen 10.87.0.2:53
//
// It listens inside the node's network namespace only.
#include "dns/cluster_dns.h"

#include <sys/socket.h>

#include <iostream>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/host_cluster.h"
#include "dns/dns_server.h"
#include "kube/informer.h"
#include "kube/object.h"
#include "kube/pod_address.h"
#include "kube/resource.h"
#include "localenv/netns_relay.h"
#include "syncer/names.h"

namespace vtenant::cli {

int RunClusterDns(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string usage =
      "usage: vtenant [--kubeconfig HOST] cluster-dns --netns NAME --listen IP:PORT\n";
  std::string netns, listen;
  SplitCommandLine split;
  if (int code = ReadFlags("vtenant cluster-dns", args,
                           {TextFlag("netns", &netns), TextFlag("listen", &listen)}, Words::kRefuse,
                           usage, split);
      code >= 0) {
    return code;
  }
  if (netns.empty() || listen.empty())
    return UsageError("vtenant cluster-dns", "--netns and --listen IP:PORT", usage);
  Result<HostPort> address = ParseAddressFlag("listen", listen);
  if (!address.ok()) return UsageError("vtenant cluster-dns", address.status().message(), usage);
  Result<std::unique_ptr<kube::Client>> host = ConnectHost(global);
  if (!host.ok()) {
    std::cerr << "vtenant cluster-dns: " << host.status().ToString() << "\n";
    return 1;
  }
  Result<int> socket = localenv::ListenInNetns(netns, address->host, address->port, SOCK_DGRAM);
  if (!socket.ok()) {
    std::cerr << "vtenant cluster-dns: " << socket.status().ToString() << "\n";
    return 1;
  }
  kube::SharedInformer services(**host, kube::resources::kServices);
  kube::SharedInformer pods(**host, kube::resources::kPods);
  if (Status indexed = pods.AddIndexer(kube::kPodAddressIndex, kube::PodAddressesOf);
      !indexed.ok()) {
    std::cerr << "vtenant cluster-dns: " << indexed.ToString() << "\n";
    return 1;
  }
  for (kube::SharedInformer* informer : {&services, &pods}) {
    if (Status started = informer->Run(); !started.ok()) {
      std::cerr << "vtenant cluster-dns: " << started.ToString() << "\n";
      return 1;
    }
  }
  std::cout << "vtenant cluster-dns: answering " << netns << "/" << listen
            << " (udp) about the host's Services" << std::endl;
  const dns::ServiceAddressLookup lookup =
      [&services](std::string_view ns, std::string_view name) -> std::optional<std::string> {
    kube::ObjectPtr service = services.cache().Get(kube::MakeKey(ns, name));
    if (service == nullptr) return std::nullopt;
    return std::string(kube::GetString(*service, {"spec", "clusterIP"}));
  };
  // A tenant's pods run on the node too, and reach this address as any
  // pod does: the host's Service names are not theirs to list (their own
  // cluster's DNS is the syncer's). Pods the syncer made are refused.
  const dns::AskerCheck check = [&pods](std::string_view from) {
    const std::vector<kube::ObjectPtr> asking = kube::PodsAt(pods.cache(), from);
    if (asking.empty()) return dns::Asker::kUnknown;
    for (const kube::ObjectPtr& pod : asking) {
      if (kube::Label(*pod, syncer::kManagedByLabel) == syncer::kManagedByValue) {
        return dns::Asker::kRefused;
      }
    }
    return dns::Asker::kAnswered;
  };
  // Until the supervisor stops it: SIGTERM ends the process.
  dns::ServeDnsQueries(
      *socket,
      [&](std::string_view query, std::string_view from) {
        return dns::AnswerClusterDnsFor(query, from, check, lookup, {});
      },
      [] { return false; });
  return 1;
}

}  // namespace vtenant::cli

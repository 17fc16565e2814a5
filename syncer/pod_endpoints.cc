#include "syncer/pod_endpoints.h"

#include <arpa/inet.h>
#include <glog/logging.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "base/flags.h"
#include "dns/dns_server.h"
#include "kube/rest_config.h"
#include "localenv/netns_relay.h"

namespace vtenant::syncer {

namespace {

// Whether `host` is a numeric loopback address: 127.0.0.0/8 or ::1.
bool IsNumericLoopback(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

}  // namespace

Result<std::pair<std::string, int>> ApiRelayTarget(std::string_view server_url) {
  auto refuse = [&](const std::string& why) {
    return InvalidArgument("the virtual API server at \"" + std::string(server_url) +
                           "\" cannot be relayed: " + why);
  };
  Result<kube::ServerAddress> server = kube::ParseServerUrl(server_url);
  if (!server.ok()) return refuse(server.status().message());
  if (!IsNumericLoopback(server->host)) return refuse("only a numeric loopback address is relayed");
  return std::pair<std::string, int>(server->host, server->port);
}

Status AddPodApiRelay(kube::Manager& manager, const std::string& netns,
                      const std::string& listen_address, std::pair<std::string, int> target) {
  VT_ASSIGN_OR_RETURN(HostPort listen, ParseAddressFlag("pod-api-address", listen_address));
  VT_ASSIGN_OR_RETURN(int listener,
                      localenv::ListenInNetns(netns, listen.host, listen.port, SOCK_STREAM));
  LOG(INFO) << "relaying " << netns << "/" << listen_address << " to the virtual API server at "
            << target.first << ":" << target.second;
  manager.AddRunnable(
      "pod-api-relay",
      [listener, target](kube::Cancellation& stop) {
        Status served = localenv::ServeInboundRelay(listener, target.first, target.second,
                                                    [&stop] { return stop.cancelled(); });
        if (!served.ok()) LOG(ERROR) << "the pods' API relay stopped: " << served.ToString();
        close(listener);
      },
      /*needs_leader=*/false);
  return Status::Ok();
}

Status AddPodDnsServer(kube::Manager& manager, const std::string& netns,
                       const std::string& listen_address, dns::AskerCheck check,
                       dns::ServiceAddressLookup lookup, dns::ClusterDnsOptions options) {
  VT_ASSIGN_OR_RETURN(HostPort listen, ParseAddressFlag("pod-dns-address", listen_address));
  VT_ASSIGN_OR_RETURN(int fd, localenv::ListenInNetns(netns, listen.host, listen.port, SOCK_DGRAM));
  LOG(INFO) << "answering DNS queries on " << netns << "/" << listen_address << " (udp)";
  manager.AddRunnable(
      "pod-dns",
      [fd, check = std::move(check), lookup = std::move(lookup),
       options = std::move(options)](kube::Cancellation& stop) {
        dns::ServeDnsQueries(
            fd,
            [&](std::string_view query, std::string_view from) {
              return dns::AnswerClusterDnsFor(query, from, check, lookup, options);
            },
            [&stop] { return stop.cancelled(); });
        close(fd);
      },
      /*needs_leader=*/false);
  return Status::Ok();
}

}  // namespace vtenant::syncer

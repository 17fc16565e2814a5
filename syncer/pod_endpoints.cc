#include "syncer/pod_endpoints.h"

#include <arpa/inet.h>
#include <glog/logging.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "localenv/netns_relay.h"
#include "syncer/flags.h"

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
  const std::string url(server_url);
  auto refuse = [&](const std::string& why) {
    return InvalidArgument("the virtual API server at \"" + url + "\" cannot be relayed: " + why);
  };
  std::string_view rest = server_url;
  if (rest.substr(0, 8) != "https://") return refuse("not an https:// URL");
  rest.remove_prefix(8);
  rest = rest.substr(0, rest.find('/'));
  std::string host;
  std::string_view port_text;
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return refuse("an unterminated IPv6 address");
    host = std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
    if (!rest.empty() && rest.front() != ':') return refuse("text after the IPv6 address");
    if (!rest.empty()) port_text = rest.substr(1);
  } else {
    const size_t colon = rest.find(':');
    host = std::string(rest.substr(0, colon));
    if (colon != std::string_view::npos) port_text = rest.substr(colon + 1);
  }
  if (!IsNumericLoopback(host)) return refuse("only a numeric loopback address is relayed");
  int port = 443;
  if (!port_text.empty() || rest.find(':') != std::string_view::npos) {
    if (port_text.empty() || port_text.size() > 5 ||
        port_text.find_first_not_of("0123456789") != std::string_view::npos) {
      return refuse("a malformed port");
    }
    port = std::stoi(std::string(port_text));
    if (port < 1 || port > 65535) return refuse("a port out of range");
  }
  return std::pair<std::string, int>(host, port);
}

Status AddPodApiRelay(kube::Manager& manager, const std::string& netns,
                      const std::string& listen_address, std::pair<std::string, int> target) {
  VT_ASSIGN_OR_RETURN(auto listen, ParseAddress("pod-api-address", listen_address));
  VT_ASSIGN_OR_RETURN(int listener,
                      localenv::ListenInNetns(netns, listen.first, listen.second, SOCK_STREAM));
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
                       const std::string& listen_address, ServiceAddressLookup lookup,
                       ClusterDnsOptions options) {
  VT_ASSIGN_OR_RETURN(auto listen, ParseAddress("pod-dns-address", listen_address));
  VT_ASSIGN_OR_RETURN(int fd,
                      localenv::ListenInNetns(netns, listen.first, listen.second, SOCK_DGRAM));
  LOG(INFO) << "answering DNS queries on " << netns << "/" << listen_address << " (udp)";
  manager.AddRunnable(
      "pod-dns",
      [fd, lookup = std::move(lookup), options = std::move(options)](kube::Cancellation& stop) {
        char buffer[4096];
        while (!stop.cancelled()) {
          pollfd ready{fd, POLLIN, 0};
          if (poll(&ready, 1, 500) <= 0) continue;
          sockaddr_storage from{};
          socklen_t from_length = sizeof(from);
          const ssize_t n = recvfrom(fd, buffer, sizeof(buffer), 0,
                                     reinterpret_cast<sockaddr*>(&from), &from_length);
          if (n <= 0) continue;
          const std::string answer =
              AnswerClusterDns(std::string_view(buffer, static_cast<size_t>(n)), lookup, options);
          if (answer.empty()) continue;
          (void)sendto(fd, answer.data(), answer.size(), 0, reinterpret_cast<sockaddr*>(&from),
                       from_length);
        }
        close(fd);
      },
      /*needs_leader=*/false);
  return Status::Ok();
}

}  // namespace vtenant::syncer

#include "dns/dns_server.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>

namespace vtenant::dns {

void ServeDnsQueries(int fd, const DnsAnswerer& answer, const std::function<bool()>& stopped) {
  char buffer[4096];
  while (!stopped()) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, 500) <= 0) continue;
    sockaddr_storage from{};
    socklen_t from_length = sizeof(from);
    const ssize_t n =
        recvfrom(fd, buffer, sizeof(buffer), 0, reinterpret_cast<sockaddr*>(&from), &from_length);
    if (n <= 0) continue;
    char from_ip[INET6_ADDRSTRLEN] = "";
    if (from.ss_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&from)->sin_addr, from_ip,
                sizeof(from_ip));
    } else if (from.ss_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&from)->sin6_addr, from_ip,
                sizeof(from_ip));
    }
    const std::string reply = answer(std::string_view(buffer, static_cast<size_t>(n)), from_ip);
    if (reply.empty()) continue;
    (void)sendto(fd, reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from),
                 from_length);
  }
}

}  // namespace vtenant::dns

#include "dns/dns_server.h"

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
    const std::string reply = answer(std::string_view(buffer, static_cast<size_t>(n)));
    if (reply.empty()) continue;
    (void)sendto(fd, reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from),
                 from_length);
  }
}

}  // namespace vtenant::dns

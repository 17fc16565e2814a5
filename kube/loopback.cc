#include "kube/loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>

namespace vtenant::kube {
namespace {

// A TCP socket bound to 127.0.0.1 at *port, or where *port is 0 at a port
// the kernel picks, which is then stored in *port.
Result<int> BindLoopback(int* port, bool close_on_exec) {
  const int fd = socket(AF_INET, SOCK_STREAM | (close_on_exec ? SOCK_CLOEXEC : 0), 0);
  if (fd < 0) return Internal(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(*port);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int err = errno;
    close(fd);
    return Internal(std::string("binding a loopback port: ") + std::strerror(err));
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

// Whether 127.0.0.1:`port` can be bound now (nothing listens there, no
// socket of a connection holds it).
bool LoopbackPortFree(int port) {
  Result<int> fd = BindLoopback(&port, /*close_on_exec=*/true);
  if (!fd.ok()) return false;
  close(*fd);
  return true;
}

std::string ReadEphemeralRange() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::pair<int, int> FixedPortRange(const std::string& range_text) {
  // Below 20000 the ports of well-known services, Kubernetes' own among
  // them (the kubelet's 10250, 10248–10259); from 30000 to 32767 its
  // NodePorts.
  constexpr int kLowest = 20000, kBelowNodePorts = 29999;
  int first = 32768, last = 60999;  // Linux's default
  std::istringstream in(range_text);
  if (int a, b; in >> a >> b && 0 < a && a <= b && b <= 65535) {
    first = a;
    last = b;
  }
  if (first - 1 >= kLowest) return {kLowest, std::min(first - 1, kBelowNodePorts)};
  if (last < 65535) return {std::max(kLowest, last + 1), 65535};
  return {0, -1};
}

Result<int> PickFreeLoopbackPort() {
  static std::mutex mu;
  static std::set<int> handed_out;
  static std::mt19937 random{std::random_device{}()};
  std::lock_guard lock(mu);
  const auto [lowest, highest] = FixedPortRange(ReadEphemeralRange());
  if (lowest <= highest) {
    // From a random place, so that processes starting together seldom try
    // the same ports in the same order.
    const int span = highest - lowest + 1;
    const int start = std::uniform_int_distribution<int>(0, span - 1)(random);
    for (int i = 0; i < span; ++i) {
      const int port = lowest + (start + i) % span;
      if (handed_out.contains(port) || !LoopbackPortFree(port)) continue;
      handed_out.insert(port);
      return port;
    }
  }
  int port = 0;
  VT_ASSIGN_OR_RETURN(int fd, BindLoopback(&port, /*close_on_exec=*/true));
  close(fd);
  handed_out.insert(port);
  return port;
}

Result<int> ListenOnLoopback(int* port, bool close_on_exec) {
  *port = 0;  // the kernel picks
  VT_ASSIGN_OR_RETURN(int fd, BindLoopback(port, close_on_exec));
  if (listen(fd, 16) != 0) {
    const int err = errno;
    close(fd);
    return Internal(std::string("listen: ") + std::strerror(err));
  }
  return fd;
}

}  // namespace vtenant::kube

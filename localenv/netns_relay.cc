#include "localenv/netns_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>
#include <utility>

#include "base/host_port.h"
#include "localenv/netns.h"

namespace vtenant::localenv {

namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// Fills `address` from a numeric host and a port. False when `host` is not
// a numeric IPv4 or IPv6 address.
bool NumericAddress(const std::string& host, int port, sockaddr_storage& address,
                    socklen_t& length) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return false;
  std::memcpy(&address, found->ai_addr, found->ai_addrlen);
  length = found->ai_addrlen;
  freeaddrinfo(found);
  return true;
}

// Copies bytes both ways until both sides have finished, passing each
// side's end of stream on as a half close; closes both.
void Splice(int a, int b, std::string pending_to_b = {}) {
  if (!pending_to_b.empty()) {
    (void)send(b, pending_to_b.data(), pending_to_b.size(), MSG_NOSIGNAL);
  }
  bool a_open = true, b_open = true;
  char buffer[64 * 1024];
  while (a_open || b_open) {
    pollfd fds[2] = {{a, static_cast<short>(a_open ? POLLIN : 0), 0},
                     {b, static_cast<short>(b_open ? POLLIN : 0), 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    bool failed = false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents == 0) continue;
      const int from = i == 0 ? a : b, to = i == 0 ? b : a;
      const ssize_t n = recv(from, buffer, sizeof(buffer), 0);
      if (n <= 0) {
        if (n < 0) failed = true;
        shutdown(to, SHUT_WR);
        (i == 0 ? a_open : b_open) = false;
        continue;
      }
      for (ssize_t sent = 0; sent < n;) {
        const ssize_t m = send(to, buffer + sent, n - sent, MSG_NOSIGNAL);
        if (m <= 0) {
          failed = true;
          break;
        }
        sent += m;
      }
    }
    if (failed) break;
  }
  close(a);
  close(b);
}

// Whether an accept that failed with `error` is worth trying again. Out of
// descriptors (EMFILE, ENFILE), the pending connection stays queued and the
// listener stays readable, so an immediate retry would spin at full CPU:
// wait a little for descriptors to be freed first.
bool RetryAccept(int error) {
  if (error == EMFILE || error == ENFILE) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return true;
  }
  return error == EINTR || error == ECONNABORTED || error == EAGAIN;
}

struct Namespaces {
  int netns = -1;
  int home = -1;
};

Result<Namespaces> OpenNamespaces(const std::string& netns) {
  Namespaces ns;
  ns.netns = open(NetnsPath(netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (ns.netns < 0) return NotFound(Errno("opening " + NetnsPath(netns)));
  ns.home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (ns.home < 0) {
    Status failed = Internal(Errno("opening /proc/self/ns/net"));
    close(ns.netns);
    return failed;
  }
  return ns;
}

void CloseNamespaces(const Namespaces& ns) {
  close(ns.netns);
  close(ns.home);
}

}  // namespace

Result<int> ListenInNetns(const std::string& netns, const std::string& host, int port, int type) {
  VT_ASSIGN_OR_RETURN(Namespaces ns, OpenNamespaces(netns));
  sockaddr_storage address{};
  socklen_t length = 0;
  const bool numeric = NumericAddress(host, port, address, length);
  Result<int> made = numeric ? SocketInNetns(ns.netns, ns.home, address.ss_family, type)
                             : Result<int>(InvalidArgument("not a numeric address: " + host));
  CloseNamespaces(ns);
  VT_ASSIGN_OR_RETURN(int fd, std::move(made));
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      (type == SOCK_STREAM && listen(fd, 128) != 0)) {
    Status failed =
        Unavailable(Errno("listening on " + host + ":" + std::to_string(port) + " in " + netns));
    close(fd);
    return failed;
  }
  return fd;
}

Status ServeInboundRelay(int listener, const std::string& target_host, int target_port,
                         const std::function<bool()>& stopped) {
  signal(SIGPIPE, SIG_IGN);
  sockaddr_storage target{};
  socklen_t target_length = 0;
  if (!NumericAddress(target_host, target_port, target, target_length)) {
    return InvalidArgument("the relay takes numeric addresses");
  }
  while (!stopped()) {
    pollfd ready{listener, POLLIN, 0};
    const int polled = poll(&ready, 1, 500);
    if (polled < 0 && errno != EINTR) return Unavailable(Errno("poll"));
    if (polled <= 0) continue;
    const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (RetryAccept(errno)) continue;
      return Unavailable(Errno("accept"));
    }
    // Connected on the connection's own thread: a target slow to answer
    // (its listen backlog full) must not hold up the connections after it.
    std::thread([client, target, target_length, target_host] {
      const int upstream = socket(target.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (upstream < 0 ||
          connect(upstream, reinterpret_cast<const sockaddr*>(&target), target_length) != 0) {
        std::cerr << "relay: " << Errno("connecting to " + target_host) << std::endl;
        if (upstream >= 0) close(upstream);
        close(client);
        return;
      }
      const int on = 1;
      setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
      setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
      Splice(client, upstream);
    }).detach();
  }
  return Status::Ok();
}

Status RunInboundRelay(const std::string& netns, const std::string& listen_host, int listen_port,
                       const std::string& target_host, int target_port) {
  signal(SIGPIPE, SIG_IGN);
  VT_ASSIGN_OR_RETURN(int listener, ListenInNetns(netns, listen_host, listen_port, SOCK_STREAM));
  std::cout << "relay: " << netns << "/" << listen_host << ":" << listen_port << " -> "
            << target_host << ":" << target_port << std::endl;
  Status served = ServeInboundRelay(listener, target_host, target_port, [] { return false; });
  close(listener);
  return served;
}

namespace {

// Reads an HTTP request head (up to the blank line) from `fd`. Returns the
// head, and in `rest` whatever followed it. Empty on error or excess.
std::string ReadRequestHead(int fd, std::string& rest) {
  std::string data;
  char buffer[4096];
  while (data.size() < 16 * 1024) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) return {};
    data.append(buffer, static_cast<size_t>(n));
    const size_t end = data.find("\r\n\r\n");
    if (end != std::string::npos) {
      rest = data.substr(end + 4);
      return data.substr(0, end);
    }
  }
  return {};
}

void Reply(int fd, const std::string& status) {
  const std::string response = "HTTP/1.1 " + status + "\r\n\r\n";
  (void)send(fd, response.data(), response.size(), MSG_NOSIGNAL);
}

// Serves one CONNECT request on `client`, then splices.
void ServeConnect(int client, Namespaces ns) {
  std::string rest;
  const std::string head = ReadRequestHead(client, rest);
  // "CONNECT 10.1.2.3:10250 HTTP/1.1"; IPv6 as "[::1]:10250".
  const size_t line_end = head.find("\r\n");
  const std::string line = head.substr(0, line_end);
  const size_t space = line.find(' '), second = line.find(' ', space + 1);
  if (line.rfind("CONNECT ", 0) != 0 || second == std::string::npos) {
    Reply(client, "400 Bad Request");
    close(client);
    return;
  }
  std::string authority = line.substr(space + 1, second - space - 1);
  const Result<HostPort> address = ParseHostPort(authority);
  sockaddr_storage target{};
  socklen_t length = 0;
  if (!address.ok() || !NumericAddress(address->host, address->port, target, length)) {
    Reply(client, "400 Bad Request");
    close(client);
    return;
  }
  Result<int> upstream = SocketInNetns(ns.netns, ns.home, target.ss_family, SOCK_STREAM);
  if (!upstream.ok() || connect(*upstream, reinterpret_cast<sockaddr*>(&target), length) != 0) {
    std::cerr << "relay: CONNECT " << authority << ": "
              << (upstream.ok() ? std::string(std::strerror(errno)) : upstream.status().message())
              << std::endl;
    if (upstream.ok()) close(*upstream);
    Reply(client, "502 Bad Gateway");
    close(client);
    return;
  }
  const int on = 1;
  setsockopt(*upstream, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
  Reply(client, "200 Connection established");
  Splice(client, *upstream, rest);
}

}  // namespace

Status RunConnectProxy(const std::string& netns, const std::string& socket_path) {
  signal(SIGPIPE, SIG_IGN);
  VT_ASSIGN_OR_RETURN(Namespaces ns, OpenNamespaces(netns));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(address.sun_path)) {
    CloseNamespaces(ns);
    return InvalidArgument("socket path too long: " + socket_path);
  }
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof(address.sun_path) - 1);
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) {
    Status failed = Internal(Errno("socket"));
    CloseNamespaces(ns);
    return failed;
  }
  unlink(socket_path.c_str());  // a stale socket of an earlier run
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listener, 128) != 0) {
    Status failed = Unavailable(Errno("listening on " + socket_path));  // before close sets errno
    close(listener);
    CloseNamespaces(ns);
    return failed;
  }
  std::cout << "relay: CONNECT proxy on " << socket_path << " dialing in " << netns << std::endl;
  while (true) {
    const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (RetryAccept(errno)) continue;
      Status failed = Unavailable(Errno("accept"));
      // The namespaces stay open: connections still being served use them.
      close(listener);
      return failed;
    }
    std::thread([client, ns] { ServeConnect(client, ns); }).detach();
  }
}

}  // namespace vtenant::localenv

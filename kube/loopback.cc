#include "kube/loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace vtenant::kube {
namespace {

// A TCP socket bound to 127.0.0.1 at a port the kernel picks; *port is set.
Result<int> BindLoopback(int* port, bool close_on_exec) {
  const int fd = socket(AF_INET, SOCK_STREAM | (close_on_exec ? SOCK_CLOEXEC : 0), 0);
  if (fd < 0) return Internal(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
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

}  // namespace

Result<int> PickFreeLoopbackPort() {
  int port = 0;
  VT_ASSIGN_OR_RETURN(int fd, BindLoopback(&port, /*close_on_exec=*/true));
  close(fd);
  return port;
}

Result<int> ListenOnLoopback(int* port, bool close_on_exec) {
  VT_ASSIGN_OR_RETURN(int fd, BindLoopback(port, close_on_exec));
  if (listen(fd, 16) != 0) {
    const int err = errno;
    close(fd);
    return Internal(std::string("listen: ") + std::strerror(err));
  }
  return fd;
}

}  // namespace vtenant::kube

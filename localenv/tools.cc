#include "localenv/tools.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace vtenant::localenv {
namespace fs = std::filesystem;

namespace {

bool IsExecutable(const fs::path& p) {
  return access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p);
}

}  // namespace

Result<std::string> FindTool(const std::string& name) {
  if (const char* dir = std::getenv("VTENANT_TOOLS_BIN"); dir != nullptr && *dir != '\0') {
    if (fs::path p = fs::path(dir) / name; IsExecutable(p)) return p.string();
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path dir = exe.parent_path(); !ec && !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    if (fs::path p = dir / ".tools" / "bin" / name; IsExecutable(p)) return p.string();
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (fs::path p = fs::path(dir) / name; !dir.empty() && IsExecutable(p)) return p.string();
    }
  }
  return NotFound(name + " not found in $VTENANT_TOOLS_BIN, .tools/bin or $PATH; build it with " +
                  "`make deps` (hack/build-tools.sh)");
}

Result<int> PickFreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Internal(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int err = errno;
    close(fd);
    return Internal(std::string("binding a loopback port: ") + std::strerror(err));
  }
  close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace vtenant::localenv

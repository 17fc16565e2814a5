#include "localenv/netns.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "localenv/command.h"

namespace vtenant::localenv {
namespace fs = std::filesystem;

namespace {

Result<std::string> IpTool() {
  for (const char* path : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}) {
    if (access(path, X_OK) == 0) return std::string(path);
  }
  return NotFound("the ip command (iproute2) is not installed; hack/install-deps.sh installs it");
}

Status Run(const std::vector<std::string>& argv) {
  VT_ASSIGN_OR_RETURN(CommandResult result, RunCommand(argv));
  if (result.exit_code != 0) {
    std::string command;
    for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
    return Internal(command + " exited " + std::to_string(result.exit_code) + ": " + result.err);
  }
  return Status::Ok();
}

}  // namespace

std::string NetnsPath(const std::string& name) { return "/run/netns/" + name; }

Status EnsureNetns(const std::string& name) {
  VT_ASSIGN_OR_RETURN(std::string ip, IpTool());
  if (!fs::exists(NetnsPath(name))) {
    VT_RETURN_IF_ERROR(Run({ip, "netns", "add", name}));
  }
  return Run({ip, "-n", name, "link", "set", "lo", "up"});
}

Status DeleteNetns(const std::string& name) {
  if (!fs::exists(NetnsPath(name))) return Status::Ok();
  VT_ASSIGN_OR_RETURN(std::string ip, IpTool());
  return Run({ip, "netns", "delete", name});
}

Status RunInNetns(const std::string& name, const std::vector<std::string>& argv) {
  std::vector<std::string> full = {"/usr/bin/nsenter", "--net=" + NetnsPath(name), "--"};
  full.insert(full.end(), argv.begin(), argv.end());
  return Run(full);
}

Result<int> SocketInNetns(int netns_fd, int home_fd, int domain, int type) {
  if (setns(netns_fd, CLONE_NEWNET) != 0) {
    return Internal(std::string("entering the network namespace: ") + std::strerror(errno));
  }
  const int fd = socket(domain, type | SOCK_CLOEXEC, 0);
  const int socket_errno = errno;
  // Back home before anything else runs on this thread.
  if (setns(home_fd, CLONE_NEWNET) != 0) {
    if (fd >= 0) close(fd);
    return Internal(std::string("returning to the home network namespace: ") +
                    std::strerror(errno));
  }
  if (fd < 0) return Internal(std::string("socket: ") + std::strerror(socket_errno));
  return fd;
}

}  // namespace vtenant::localenv

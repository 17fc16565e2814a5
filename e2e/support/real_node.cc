#include "e2e/support/real_node.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "base/eventually.h"
#include "base/file.h"

namespace vtenant::e2e {

std::string CannotRunContainers() {
  if (geteuid() != 0) {
    return "the real node needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN for its network "
           "namespace, mounts and cgroups); this test runs as uid " +
           std::to_string(geteuid());
  }
  const pid_t child = fork();
  if (child == 0) _exit(unshare(CLONE_NEWNET | CLONE_NEWNS) == 0 ? 0 : 1);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return "the kernel refuses new network and mount namespaces (unshare(CLONE_NEWNET | "
           "CLONE_NEWNS) failed: CAP_SYS_ADMIN is missing)";
  }
  return "";
}

int ForwardedPort(const std::string& log) {
  int port = 0;
  Eventually(
      [&] {
        const std::string text = ReadFileOrEmpty(log);
        const size_t at = text.find("Forwarding from 127.0.0.1:");
        if (at == std::string::npos) return false;
        port = std::stoi(text.substr(at + sizeof("Forwarding from 127.0.0.1:") - 1));
        return true;
      },
      std::chrono::seconds(60), std::chrono::milliseconds(100));
  return port;
}

}  // namespace vtenant::e2e

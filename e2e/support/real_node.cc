#include "e2e/support/real_node.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>

#include "base/eventually.h"
#include "base/file.h"
#include "e2e/support/kubectl.h"
#include "localenv/command.h"
#include "localenv/testing/source_tree.h"
#include "localenv/tools.h"

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

Result<std::vector<std::string>> BuildAndLoadProgramsImage(Environment& env,
                                                           const std::string& build_dir) {
  const std::string out = env.dir() + "/programs-image";
  VT_ASSIGN_OR_RETURN(std::string apiserver, localenv::FindTool("kube-apiserver"));
  VT_ASSIGN_OR_RETURN(
      localenv::CommandResult built,
      localenv::RunCommand({localenv::SourcePath("hack/build-images.py"), out, "--programs",
                            build_dir, std::filesystem::path(apiserver).parent_path().string()}));
  if (built.exit_code != 0) return Internal("hack/build-images.py: " + built.out + built.err);
  VT_ASSIGN_OR_RETURN(localenv::CommandResult loaded,
                      env.Vtenant({"load-image", out + "/programs.tar"}));
  if (loaded.exit_code != 0) return Internal("vtenant load-image: " + loaded.out + loaded.err);
  std::vector<std::string> refs;
  std::istringstream lines(ReadFileOrEmpty(out + "/programs.ref"));
  for (std::string ref; std::getline(lines, ref);) refs.push_back(ref);
  return refs;
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

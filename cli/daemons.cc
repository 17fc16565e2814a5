#include "cli/daemons.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/eventually.h"
#include "base/secret_file.h"
#include "localenv/process.h"

namespace vtenant::cli {
namespace fs = std::filesystem;
namespace {

bool Accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

std::string LogTail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    out += "    " + all[i] + "\n";
  }
  return out;
}

}  // namespace

Result<std::string> FindVtenantProgram(const std::string& override, const std::string& build_subdir,
                                       const std::string& name) {
  if (!override.empty()) {
    if (access(override.c_str(), X_OK) == 0) return override;
    return NotFound(override + " is not an executable file");
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path path = exe.parent_path().parent_path() / build_subdir / name;
  if (!ec && access(path.c_str(), X_OK) == 0) return path.string();
  return NotFound(name + " is not built (looked for " + path.string() +
                  "); build it with `cmake --build " + exe.parent_path().parent_path().string() +
                  " --target " + name + "`");
}

Result<pid_t> StartDaemon(const DaemonOptions& options) {
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(options.dir));
  const std::string log = options.dir + "/" + options.name + ".log";
  VT_ASSIGN_OR_RETURN(
      localenv::Process process,
      localenv::Process::Start({.argv = options.argv, .log_path = log, .die_with_parent = false}));
  bool exited = false;
  const bool answered = Eventually(
      [&] {
        if (!process.Running()) {
          exited = true;
          return true;
        }
        return Accepts(options.health_port);
      },
      options.wait, std::chrono::milliseconds(100));
  if (exited || !answered) {
    const std::string how =
        exited ? "exited"
               : "did not answer on 127.0.0.1:" + std::to_string(options.health_port) + " within " +
                     std::to_string(options.wait.count()) + "s";
    process.Stop(std::chrono::seconds(5));
    return FailedPrecondition(options.name + " " + how + "; the end of " + log + ":\n" +
                              LogTail(log, 15));
  }
  return process.Release();
}

}  // namespace vtenant::cli

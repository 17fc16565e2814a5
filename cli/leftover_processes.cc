#include "cli/leftover_processes.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/eventually.h"

namespace vtenant::cli {
namespace fs = std::filesystem;
namespace {

const std::set<std::string> kPrograms = {"etcd",
                                         "kube-apiserver",
                                         "kube-controller-manager",
                                         "kube-scheduler",
                                         "kwok",
                                         "vtenant-syncer",
                                         "vtenant-operator",
                                         "vtenant-scheduler",
                                         "kubelet",
                                         "kube-proxy",
                                         "containerd",
                                         "containerd-shim-runc-v2"};

bool RefersTo(const std::string& text, const std::string& dir) {
  for (size_t at = text.find(dir); at != std::string::npos; at = text.find(dir, at + 1)) {
    const size_t end = at + dir.size();
    // The folder itself or something inside it, not /x/.vtenant-other.
    if (end == text.size() || text[end] == '/' || text[end] == '\0' || text[end] == ',' ||
        text[end] == ':') {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<LeftoverProcess> FindLeftoverProcesses(const std::string& dir_in) {
  const std::string dir = fs::path(dir_in).lexically_normal().string();
  std::vector<LeftoverProcess> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string pid_text = entry.path().filename();
    if (pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(pid_text);
    if (pid == getpid()) continue;
    std::ifstream cmdline_file(entry.path() / "cmdline");
    std::stringstream buffer;
    buffer << cmdline_file.rdbuf();
    const std::string cmdline = buffer.str();
    if (cmdline.empty()) continue;  // kernel thread or gone
    const std::string name = fs::path(cmdline.substr(0, cmdline.find('\0'))).filename();
    if (!kPrograms.contains(name)) continue;
    std::error_code cwd_ec;
    const std::string cwd = fs::read_symlink(entry.path() / "cwd", cwd_ec).string();
    if (RefersTo(cmdline, dir) || (!cwd_ec && RefersTo(cwd, dir))) {
      found.push_back({pid, name});
    }
  }
  return found;
}

int StopLeftoverProcesses(const std::string& dir, std::chrono::milliseconds grace) {
  // Clients first, then the API servers, then their store: an API server
  // whose etcd is gone, or that still serves watches, takes its whole grace
  // period to stop.
  const std::vector<std::set<std::string>> tiers = {
      {"vtenant-operator", "vtenant-scheduler", "vtenant-syncer", "kube-scheduler",
       "kube-controller-manager", "kwok", "kubelet", "kube-proxy"},
      {"kube-apiserver"},
      {"etcd"},
      // The real node's runtime last: its shims hold the pods' containers
      // (the supervisor kills those first; see localenv/real_node.h).
      {"containerd-shim-runc-v2"},
      {"containerd"}};
  auto in_tier = [&](const std::set<std::string>& tier) {
    std::vector<LeftoverProcess> found;
    for (const LeftoverProcess& p : FindLeftoverProcesses(dir)) {
      if (tier.contains(p.name)) found.push_back(p);
    }
    return found;
  };
  auto signal_all = [](const std::vector<LeftoverProcess>& found, int sig) {
    for (const LeftoverProcess& p : found) {
      // Group leaders take their children with them.
      if (getpgid(p.pid) == p.pid) kill(-p.pid, sig);
      kill(p.pid, sig);
    }
  };
  int stopped = 0;
  for (const std::set<std::string>& tier : tiers) {
    const std::vector<LeftoverProcess> found = in_tier(tier);
    if (found.empty()) continue;
    stopped += static_cast<int>(found.size());
    signal_all(found, SIGTERM);
    if (Eventually([&] { return in_tier(tier).empty(); }, grace, std::chrono::milliseconds(50))) {
      continue;
    }
    signal_all(in_tier(tier), SIGKILL);
    Eventually([&] { return in_tier(tier).empty(); }, std::chrono::seconds(5),
               std::chrono::milliseconds(50));
  }
  return stopped;
}

}  // namespace vtenant::cli

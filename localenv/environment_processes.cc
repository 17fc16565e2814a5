#include "localenv/environment_processes.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "base/eventually.h"
#include "localenv/process.h"

namespace vtenant::localenv {
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
    if (end == text.size() || text[end] == '/' || text[end] == ',' || text[end] == ':') {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<EnvironmentProcess> FindEnvironmentProcesses(const std::string& dir_in) {
  const std::string dir = fs::path(dir_in).lexically_normal().string();
  std::vector<EnvironmentProcess> found;
  for (const localenv::RunningProcess& p : localenv::ListProcesses()) {
    if (p.pid == getpid()) continue;
    const std::string name = fs::path(p.argv[0]).filename();
    if (!kPrograms.contains(name)) continue;
    bool refers = RefersTo(p.cwd, dir);
    for (const std::string& arg : p.argv) refers = refers || RefersTo(arg, dir);
    if (refers) found.push_back({p.pid, name, p.argv});
  }
  return found;
}

int StopEnvironmentProcesses(const std::string& dir, std::chrono::milliseconds grace) {
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
    std::vector<EnvironmentProcess> found;
    for (const EnvironmentProcess& p : FindEnvironmentProcesses(dir)) {
      if (tier.contains(p.name)) found.push_back(p);
    }
    return found;
  };
  auto signal_all = [](const std::vector<EnvironmentProcess>& found, int sig) {
    for (const EnvironmentProcess& p : found) {
      // Group leaders take their children with them.
      if (getpgid(p.pid) == p.pid) kill(-p.pid, sig);
      kill(p.pid, sig);
    }
  };
  int stopped = 0;
  for (const std::set<std::string>& tier : tiers) {
    const std::vector<EnvironmentProcess> found = in_tier(tier);
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

}  // namespace vtenant::localenv

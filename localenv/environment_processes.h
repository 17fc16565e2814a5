// Finding and stopping the processes of a local environment by the folder
// they use, with no state file needed: the tenants' control planes and
// syncers that the operator started (each in its own process group, with
// its files under the state folder), whatever an interrupted `vtenant up`
// left behind, and what a test or benchmark started under its own folder.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace vtenant::localenv {

struct EnvironmentProcess {
  pid_t pid;
  std::string name;               // executable file name
  std::vector<std::string> argv;  // its command line, name first
};

// Processes of the programs a local environment runs (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kwok, vtenant-*, and the real
// node's kubelet, kube-proxy, containerd and its shims) whose command
// line or working folder refers to `dir` (absolute) or a path inside it
// (`dir` followed by the end, '/', ',' or ':', so a sibling named
// `dir`-other does not count). Never this process; never other programs,
// so a shell that merely mentions the folder is safe.
std::vector<EnvironmentProcess> FindEnvironmentProcesses(const std::string& dir);

// Stops them in tiers (the programs that are clients, then the API servers,
// then etcd, then the real node's containerd shims, then containerd):
// SIGTERM to each process (and its group, when it leads one), then SIGKILL
// to whatever of the tier is still there after `grace`, waiting up to five
// seconds more for those to go. Each tier is found again when its turn
// comes. Returns how many it signalled.
int StopEnvironmentProcesses(const std::string& dir,
                             std::chrono::milliseconds grace = std::chrono::seconds(10));

}  // namespace vtenant::localenv

// The record of a running local environment (`vtenant up`), so that later
// commands (`down`, `status`) can find its processes and kubeconfig.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace vtenant::cli {

struct EnvironmentState {
  std::string kubeconfig;                                // host admin kubeconfig
  std::vector<std::pair<std::string, pid_t>> processes;  // name, process-group leader

  // Saves to <dir>/state.yaml.
  Status Save(const std::string& dir) const;
  // NotFound when no environment was started in `dir`.
  static Result<EnvironmentState> Load(const std::string& dir);
  // Names of the recorded processes that are still alive.
  std::vector<std::string> Alive() const;
};

// True if `pid` is alive and runs the program called `name`.
bool IsRecordedProcess(const std::string& name, pid_t pid);

}  // namespace vtenant::cli

// The record of a local environment (`vtenant up`): its host kubeconfig,
// the supervisor that runs it, and each component with the command it runs
// and how it fares. The supervisor (`vtenant supervise`) writes it; `up`,
// `down` and `status` read it. Because it keeps every component's command
// line, the same environment (same ports, same data) can be started again
// after `vtenant down` or a reboot.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/status.h"
#include "localenv/supervisor.h"

namespace vtenant::cli {

struct ComponentRecord {
  localenv::Component component;
  pid_t pid = -1;  // -1: not running
  int restarts = 0;
  std::string last_exit;
};

struct EnvironmentState {
  std::string kubeconfig;  // host admin kubeconfig
  pid_t supervisor_pid = -1;
  // "starting" (being built or resumed), "ready", "stopping" (the
  // supervisor is taking it down), "stopped", "failed".
  std::string phase;
  std::string message;                      // why it failed; empty otherwise
  std::vector<ComponentRecord> components;  // in start order

  // Saves to <dir>/state.yaml, owner-only (WriteSecretFile: the folder holds
  // every credential of the environment) and atomically (readers never see
  // half a file). A component's die_with_parent is not recorded; its umask
  // is, where it sets one.
  Status Save(const std::string& dir) const;
  // NotFound when no environment was started in `dir`; InvalidArgument,
  // naming the file, when the record is damaged (not YAML, or a component
  // without a name). Missing fields read as their defaults; every
  // component's die_with_parent is false.
  static Result<EnvironmentState> Load(const std::string& dir);

  // Whether the recorded supervisor is alive: its pid runs this CLI (as
  // vtenant or kubectl-vtenant), so a recycled pid does not count.
  bool SupervisorRunning() const;
  // Names of the recorded components whose pid is alive and runs the
  // component's program (ProgramOf), in record order.
  std::vector<std::string> Alive() const;
  // The record of `name`; nullptr when there is none.
  const ComponentRecord* Find(const std::string& name) const;
};

// The file name of a component's program ("kube-apiserver"): argv[0]'s, or
// for a program run through nsenter the one after "--"; the component's name
// when argv is empty.
std::string ProgramOf(const localenv::Component& component);

}  // namespace vtenant::cli

// ShutdownSignal: SIGTERM and SIGINT as a call on a thread of its own.
//
// A signal handler may do almost nothing, so the handler only writes a byte
// to a pipe; a watcher thread reads it and calls `on_signal`, where any code
// may run. The first signal asks for a graceful stop; a second one, while
// that stop is still running, exits the process at once with status 1, as
// kubectl and controller-runtime do, so an impatient operator is never stuck.
//
// One instance per process: installing a second one fails.
#pragma once

#include <functional>
#include <memory>
#include <thread>

#include "base/status.h"

namespace vtenant::kube {

class ShutdownSignal {
 public:
  // Installs handlers for SIGTERM and SIGINT. `on_signal` runs on the
  // watcher thread, once, at the first signal; it should only ask for the
  // stop and return, because the watcher reads the second signal (the one
  // that exits at once) only after it returns. Fails with FailedPrecondition
  // when another instance is installed, Internal when the pipe or handlers
  // cannot be set up.
  static Result<std::unique_ptr<ShutdownSignal>> Install(std::function<void()> on_signal);

  // Restores the previous handlers and joins the watcher thread.
  ~ShutdownSignal();

  ShutdownSignal(const ShutdownSignal&) = delete;
  ShutdownSignal& operator=(const ShutdownSignal&) = delete;

 private:
  explicit ShutdownSignal(std::function<void()> on_signal);
  void Watch();

  std::function<void()> on_signal_;
  std::thread watcher_;
};

}  // namespace vtenant::kube

// The vtenant programs `vtenant up` runs beside the host cluster
// (vtenant-scheduler, vtenant-operator): where their binaries are, and
// starting one detached, in its own process group, until it answers.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"

namespace vtenant::cli {

// The binary `name` built in `build_subdir` of the build tree this vtenant
// binary belongs to (<build>/cli/vtenant -> <build>/<build_subdir>/<name>),
// or `override` when set. NotFound, with the path looked at and the build
// command, when it is not there.
Result<std::string> FindVtenantProgram(const std::string& override, const std::string& build_subdir,
                                       const std::string& name);

struct DaemonOptions {
  std::string name;               // also the log's name: <dir>/<name>.log
  std::vector<std::string> argv;  // argv[0] is the binary
  std::string dir;                // its folder under the state folder
  int health_port = 0;            // waits until 127.0.0.1:<port> accepts
  std::chrono::seconds wait{60};
};

// Starts the program detached (it outlives this command; `vtenant down`
// stops it) and waits until its health port accepts connections. When it
// exits or never answers, it is stopped and the error quotes the end of
// its log. Returns its pid, the leader of its process group.
Result<pid_t> StartDaemon(const DaemonOptions& options);

}  // namespace vtenant::cli

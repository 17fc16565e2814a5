// Finding the Kubernetes binaries that hack/ builds (.tools/bin).
#pragma once

#include <string>

#include "base/status.h"

namespace vtenant::localenv {

// The path of the tool `name` ("kube-apiserver", "etcd", "kubectl", ...).
// Looks in $VTENANT_TOOLS_BIN, then .tools/bin above the running executable
// (a build tree inside the source tree), then $PATH. The error says how to
// build the tools.
Result<std::string> FindTool(const std::string& name);

// A loopback TCP port that was free a moment ago. There is an unavoidable
// race with other processes; callers that bind later retry on failure.
Result<int> PickFreeLoopbackPort();

}  // namespace vtenant::localenv

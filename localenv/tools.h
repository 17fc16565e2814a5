// Finding the Kubernetes binaries that hack/ builds (.tools/bin).
#pragma once

#include <string>

#include "base/status.h"
#include "kube/loopback.h"

namespace vtenant::localenv {

// The path of the tool `name` ("kube-apiserver", "etcd", "kubectl", ...).
// Looks in $VTENANT_TOOLS_BIN, then .tools/bin above the running executable
// (a build tree inside the source tree), then $PATH; the first executable
// regular file found. NotFound, saying how to build the tools, otherwise.
Result<std::string> FindTool(const std::string& name);

// The local environment's servers take their ports from here.
using kube::PickFreeLoopbackPort;

}  // namespace vtenant::localenv

// Which host cluster a command talks to, and a client for it.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "cli/commands.h"
#include "kube/client.h"

namespace vtenant::cli {

// The host kubeconfig, in kubectl's order with the local environment
// slotted in before the user's default: --kubeconfig, else $KUBECONFIG
// (first entry), else the admin kubeconfig of the local environment in
// --state-dir (if `vtenant up` started one), else ~/.kube/config.
// NotFound, saying how to get one, when none exists.
Result<std::string> HostKubeconfigPath(const GlobalOptions& global);

// A client of that cluster.
Result<std::unique_ptr<kube::Client>> ConnectHost(const GlobalOptions& global);

}  // namespace vtenant::cli

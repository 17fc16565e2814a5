// Which host cluster a command talks to, and a client for it.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "cli/commands.h"
#include "kube/client.h"

namespace vtenant::cli {

// The host kubeconfig, in kubectl's order with the local environment
// slotted in before the user's default: --kubeconfig, else $KUBECONFIG's
// first entry, else the admin kubeconfig of the local environment in
// --state-dir (if `vtenant up` started one), else ~/.kube/config; each
// but --kubeconfig is passed over when its file does not exist. NotFound
// when the --kubeconfig file does not exist, or, saying how to get one,
// when none of the others does.
Result<std::string> HostKubeconfigPath(const GlobalOptions& global);

// A client of that cluster: HostKubeconfigPath's errors, or the kubeconfig's
// (with its path) when it cannot be read. Connects lazily: no request is
// made here.
Result<std::unique_ptr<kube::Client>> ConnectHost(const GlobalOptions& global);

}  // namespace vtenant::cli

// What the e2e tests on the local environment's real node share: whether
// this machine can run containers at all, and the port a `kubectl
// port-forward` opened.
#pragma once

#include <string>

namespace vtenant::e2e {

// Why this machine cannot run containers at all, or "" when it can: the
// node needs root's capabilities to make network namespaces, mounts and
// cgroups. (Missing packages are not a reason: `make test` installs them.)
std::string CannotRunContainers();

// The local port `kubectl port-forward` says it listens on in its log
// ("Forwarding from 127.0.0.1:41234 -> 8080"), once it does; 0 after a
// minute without it.
int ForwardedPort(const std::string& log);

}  // namespace vtenant::e2e

// What the e2e tests on the local environment's real node share: whether
// this machine can run containers at all, the programs' image on the node,
// and the port a `kubectl port-forward` opened.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "e2e/support/environment.h"

namespace vtenant::e2e {

// Why this machine cannot run containers at all, or "" when it can: the
// node needs root's capabilities to make network namespaces, mounts and
// cgroups. (Missing packages are not a reason: `make test` installs them.)
std::string CannotRunContainers();

// Builds the programs' image from the build folder `build_dir`
// (hack/build-images.py --programs, into <env's folder>/programs-image) and
// loads it into `env`'s real node (`vtenant load-image`). Returns the image
// references it made, in the order programs.ref lists them; Internal with
// the command's output when either step fails.
Result<std::vector<std::string>> BuildAndLoadProgramsImage(Environment& env,
                                                           const std::string& build_dir);

// The local port `kubectl port-forward` says it listens on in its log
// ("Forwarding from 127.0.0.1:41234 -> 8080"), once it does; 0 after a
// minute without it.
int ForwardedPort(const std::string& log);

}  // namespace vtenant::e2e

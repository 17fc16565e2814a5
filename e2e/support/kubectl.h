// Driving a cluster the way a person does: the real kubectl and helm, with a
// chosen kubeconfig. For tests above unit level (examples, chart, e2e).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "localenv/command.h"

namespace vtenant::e2e {

// Runs `kubectl --kubeconfig <kubeconfig> <args...>` with `input` on stdin.
// A non-zero exit is in the result; an error means kubectl could not run
// (not built: the message says how to build it).
Result<localenv::CommandResult> Kubectl(const std::string& kubeconfig,
                                        std::vector<std::string> args,
                                        const std::string& input = {});

// Runs `helm <args...>` (helm from .tools/bin), with KUBECONFIG set when
// `kubeconfig` is not empty.
Result<localenv::CommandResult> Helm(const std::string& kubeconfig, std::vector<std::string> args);

// Like Kubectl, but a non-zero exit is an error carrying kubectl's stderr.
Result<std::string> KubectlOk(const std::string& kubeconfig, std::vector<std::string> args,
                              const std::string& input = {});

// Applies every CRD in `dir` (a folder of YAML files) and waits until the
// API server serves them (condition Established), with the real kubectl as
// a user would; a test that does not check kubectl passes its CRDs to its
// cluster as LocalClusterOptions::manifests.
Status InstallCrds(const std::string& kubeconfig, const std::string& dir);

}  // namespace vtenant::e2e

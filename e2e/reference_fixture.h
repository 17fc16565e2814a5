// ReferenceEnvironmentTest: the reference setup, shared by every suite of
// the e2e binary that derives from it. `vtenant up` with one NVIDIA L40S,
// the GitOps examples applied (ml-org, nlp, vision, recsys), each team
// acting through the real kubectl with its own kubeconfig.
//
// Starting the environment takes most of a minute, so it is started once,
// by the first suite that needs it, and brought down after the last test
// of the binary (a global test environment does that). Each test removes
// the workloads it started, so the next one finds the teams as they were.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "e2e/support/environment.h"

namespace vtenant::e2e {

// The reference teams, each a Tenant under ml-org with 330m of the GPU.
const std::vector<std::string>& ReferenceTeams();

class ReferenceEnvironmentTest : public testing::Test {
 protected:
  // Starts the shared environment on the first call; later calls (from
  // other suites) find it started. A failed start is reported once and
  // every test then fails in SetUp.
  static void SetUpTestSuite();
  void SetUp() override;

  // The shared environment; valid in tests (SetUp checked it).
  static Environment& env();

  // The host pods the syncer made for `team`, matching `selector` as well
  // when it is not empty.
  static std::vector<kube::Object> HostPods(const std::string& team,
                                            const std::string& selector = "");

  // Phases of the team's virtual pods in `ns` matching `selector`, by
  // name; pods being deleted are left out.
  static std::map<std::string, std::string> VirtualPhases(const std::string& team,
                                                          const std::string& selector,
                                                          const std::string& ns = "default");

  // How many of `phases` are `phase`.
  static int CountPhase(const std::map<std::string, std::string>& phases, const std::string& phase);

  // `kubectl apply -k` of examples/tenants/<dir> in the team's cluster.
  static Status ApplyExample(const std::string& team, const std::string& dir);

  // Whether, within `limit`, `n` of the team's virtual pods matching
  // `selector` are Running (looked at every 500 ms).
  static bool EventuallyRunning(const std::string& team, const std::string& selector, int n,
                                std::chrono::seconds limit = std::chrono::seconds(120));

  // The GPU queue `queue` has allocated, in milli-GPUs; -1 when unknown.
  static int64_t QueueAllocated(const std::string& queue);

  // Applies each team's examples/tenants/<team>/workloads and waits until
  // its train pod runs.
  static void StartTrainPods();

  // Deletes what `kubectl apply -k <dir>` made in the team's cluster and
  // waits until the host has none of its pods matching `selector` left.
  static void DeleteWorkloads(const std::string& team, const std::string& dir,
                              const std::string& selector);
};

}  // namespace vtenant::e2e

// SchedulerClusterTest: the base of the scheduler's integration suites. One
// real host cluster per suite (localenv::ClusterTest), with simulated nodes
// from an inventory and our KAI CRDs installed.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "localenv/gpu_nodes.h"
#include "localenv/testing/cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler::testing {

class SchedulerClusterTest : public localenv::ClusterTest {
 protected:
  // Starts cluster `name` with `namespaces` and the nodes `inventory_yaml`
  // describes (the format of localenv/gpu_nodes.h), then installs the KAI
  // CRDs. A failure is fatal: callers return when HasFatalFailure() is true.
  static void StartWithNodes(const std::string& name, const std::string& inventory_yaml,
                             const std::vector<std::string>& namespaces) {
    Result<std::vector<localenv::SimulatedNode>> nodes =
        localenv::ParseNodeInventory(inventory_yaml, "test");
    ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
    StartCluster(name, {.nodes = *nodes}, namespaces);
    if (HasFatalFailure()) return;
    ASSERT_TRUE(InstallKaiCrds(client()).ok());
  }
};

}  // namespace vtenant::scheduler::testing

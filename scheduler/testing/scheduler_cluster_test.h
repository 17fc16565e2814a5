// SchedulerClusterTest: the base of the scheduler's integration suites. One
// real host cluster per suite (localenv::ClusterTest), with simulated nodes
// from an inventory and our KAI CRDs installed, and, for the suites that
// share one, an in-process scheduler. Its TearDownTestSuite stops both, so
// a derived suite need not write one.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kube/resource.h"
#include "localenv/gpu_nodes.h"
#include "localenv/testing/cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler::testing {

// The names every suite spells, so that a suite's `using namespace testing;`
// is its one using-line.
using kube::Object;
using localenv::ParseTestJson;
namespace res = kube::resources;

class SchedulerClusterTest : public localenv::ClusterTest {
 protected:
  // Starts cluster `name` with `namespaces`, the nodes `inventory_yaml`
  // describes (the format of localenv/gpu_nodes.h) and the KAI CRDs,
  // served when this returns. A failure is fatal: callers return when HasFatalFailure() is true.
  static void StartWithNodes(const std::string& name, const std::string& inventory_yaml,
                             const std::vector<std::string>& namespaces) {
    Result<std::vector<localenv::SimulatedNode>> nodes =
        localenv::ParseNodeInventory(inventory_yaml, "test");
    ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
    StartCluster(name, {.nodes = *nodes, .manifests = KaiCrdManifests()}, namespaces);
  }

  // Starts the suite's scheduler (StartScheduler with `flags`) on its
  // cluster; it runs until TearDownTestSuite. A failure is fatal, as above.
  static void StartSuiteScheduler(SchedulerFlags flags = {}) {
    Result<std::unique_ptr<SchedulerApp>> app = StartScheduler(client(), std::move(flags));
    ASSERT_TRUE(app.ok()) << app.status().ToString();
    app_ = std::move(app).value();
  }

  // Stops the suite's scheduler, if one was started, then the cluster.
  static void TearDownTestSuite() {
    app_.reset();
    StopCluster();
  }

 private:
  static inline std::unique_ptr<SchedulerApp> app_;
};

}  // namespace vtenant::scheduler::testing

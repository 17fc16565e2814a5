// Integration: PodDisruptionBudgets against a real API server. Reclaim
// evicts through the Eviction API; a victim its budget protects is refused
// (429) by the API server, is told so with an Event, and is left alone for
// a while: the scheduler plans again with another victim, or the job waits.
#include <gtest/gtest.h>

#include "base/eventually.h"
#include "localenv/testing/cluster_test.h"
#include "scheduler/kai_names.h"
#include "scheduler/testing/scheduler_cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler {
namespace {

using namespace testing;

class PdbTest : public SchedulerClusterTest {
 protected:
  static void SetUpTestSuite() {
    // This suite's own nodes; every scheduler suite starts its cluster alike
    // (testing/scheduler_cluster_test.h).
    StartWithNodes("sched-pdb", R"(
nodes:
- {name: gpu, count: 3, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
)",
                   {"ml"});
    if (HasFatalFailure()) return;
    // owed is owed every GPU; burst has no quota and only borrows.
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("owed", "", 3, -1)).ok());
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("burst", "", 0, -1)).ok());
    StartSuiteScheduler();
  }

  static Status Run(const std::string& name, const std::string& queue, bool guarded = false) {
    Object pod = PodManifest("ml", name, {.queue = queue, .whole_gpus = 1});
    if (guarded) kube::SetString(pod, {"metadata", "labels"}, "app", "guarded");
    return client().Create(res::kPods, "ml", pod).status();
  }
  static bool Running(const std::string& name) {
    Result<Object> p = client().Get(res::kPods, "ml", name);
    return p.ok() && kube::GetString(*p, {"status", "phase"}) == "Running";
  }
  static bool Gone(const std::string& name) { return !client().Get(res::kPods, "ml", name).ok(); }
};

TEST_F(PdbTest, AProtectedVictimStaysAndTheReclaimTakesAnother) {
  ASSERT_TRUE(Run("guarded", "burst", true).ok());
  ASSERT_TRUE(Run("free", "burst").ok());
  ASSERT_TRUE(Run("steady", "owed").ok());
  ASSERT_TRUE(
      Eventually([&] { return Running("guarded") && Running("free") && Running("steady"); }));
  ASSERT_TRUE(client()
                  .Create(res::kPodDisruptionBudgets, "ml",
                          ParseTestJson(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
      "metadata":{"name":"guard","namespace":"ml"},
      "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"guarded"}}}})"))
                  .ok());
  // The disruption controller has counted the guarded pod: no disruption allowed.
  ASSERT_TRUE(Eventually([&] {
    Result<Object> pdb = client().Get(res::kPodDisruptionBudgets, "ml", "guard");
    return pdb.ok() && kube::GetInt(*pdb, {"status", "observedGeneration"}, 0) >= 1 &&
           kube::GetInt(*pdb, {"status", "currentHealthy"}, 0) == 1 &&
           kube::GetInt(*pdb, {"status", "disruptionsAllowed"}, -1) == 0;
  }));

  // owed asks for its GPU back: whichever victim is tried first, the
  // unprotected one is the one that goes.
  ASSERT_TRUE(Run("claim", "owed").ok());
  ASSERT_TRUE(Eventually([&] { return Running("claim"); }));
  EXPECT_TRUE(Gone("free"));
  EXPECT_TRUE(Running("guarded"));
}

TEST_F(PdbTest, WithOnlyAProtectedVictimTheJobWaitsAndTheVictimIsTold) {
  // Every GPU is taken; the only pod above its quota is the guarded one.
  ASSERT_TRUE(Running("guarded") && Running("claim") && Running("steady"));
  ASSERT_TRUE(Run("claim-2", "owed").ok());
  std::vector<std::string> refused;
  ASSERT_TRUE(Eventually([&] {
    refused = EventMessages(client(), "ml", "guarded", "EvictionRefused");
    return !refused.empty();
  }));
  EXPECT_NE(refused[0].find("disruption budget"), std::string::npos) << refused[0];
  std::vector<std::string> why;
  ASSERT_TRUE(Eventually([&] {
    why = EventMessages(client(), "ml", "claim-2", "Unschedulable");
    return !why.empty();
  }));
  EXPECT_TRUE(Running("guarded")) << "the budget holds";
  Result<Object> waiting = client().Get(res::kPods, "ml", "claim-2");
  ASSERT_TRUE(waiting.ok());
  EXPECT_EQ(kube::GetString(*waiting, {"spec", "nodeName"}), "");
}

}  // namespace
}  // namespace vtenant::scheduler

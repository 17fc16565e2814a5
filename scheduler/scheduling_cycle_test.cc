// One scheduling cycle against an in-memory API server: reclaim evicts
// through the Eviction API, the winner waits (nominated) until its victim is
// gone, and a refused eviction is planned again rather than forgotten.
#include "scheduler/scheduling_cycle.h"

#include <gtest/gtest.h>

#include "scheduler/testing/fake_cluster.h"

namespace vtenant::scheduler {
namespace {

namespace res = kube::resources;

using testing::Json;

class SchedulingCycleTest : public ::testing::Test, protected testing::FakeCluster {
 protected:
  SchedulingCycleTest()
      : evictor_(client_, events_, &registry_),
        status_(
            client_, [this](const std::string& key) { return Live(res::kQueues, key); },
            [this](const std::string& key) { return Live(res::kPodGroups, key); }, &registry_),
        binder_(client_, view_, reservations_, events_, {.workers = 2, .registry = &registry_}),
        pending_(events_, [this](const std::string& key) { return Live(res::kPods, key); }),
        cycle_(view_, binder_, evictor_, reservations_, status_, pending_,
               {.registry = &registry_}) {
    Add(res::kNodes, "", R"({"metadata":{"name":"n1","labels":{"nvidia.com/gpu.memory":"46068"}},
        "status":{"allocatable":{"cpu":"8","memory":"8Gi","nvidia.com/gpu":"1"},
        "conditions":[{"type":"Ready","status":"True"}]}})");
    // a is owed the GPU (quota 1); b holds it beyond its quota of 0.
    Add(res::kQueues, "",
        R"({"metadata":{"name":"a"},"spec":{"resources":{"gpu":{"quota":1,"limit":-1}}}})");
    Add(res::kQueues, "",
        R"({"metadata":{"name":"b"},"spec":{"resources":{"gpu":{"quota":0,"limit":-1}}}})");
    Add(res::kPods, "ns", Pod("over", "b", "n1"));
    Add(res::kPods, "ns", Pod("owed", "a", ""));
  }

  static std::string Pod(const std::string& name, const std::string& queue,
                         const std::string& node) {
    return R"({"metadata":{"name":")" + name +
           R"(","namespace":"ns","labels":{"kai.scheduler/queue":")" + queue +
           R"("},"creationTimestamp":"2026-12-01T08:00:00Z"},"spec":{"schedulerName":"kai-scheduler","nodeName":")" +
           node + R"(","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]},
           "status":{"startTime":"2026-12-01T08:00:00Z"}})";
  }

  std::string NodeOf(const std::string& name) { return FakeCluster::NodeOf("ns", name); }

  CycleStats Cycle(int64_t now) {
    Result<CycleStats> s = cycle_.RunOnce(now);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    binder_.WaitIdle();
    return s.ok() ? *s : CycleStats{};
  }

  Evictor evictor_;
  StatusWriter status_;
  Binder binder_;
  PendingEvents pending_;
  SchedulingCycle cycle_;
};

TEST_F(SchedulingCycleTest, ReclaimWaitsForTheVictimThenBinds) {
  const int64_t now = 1796119200;  // an hour after the pods started
  CycleStats s = Cycle(now);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.nominated, 1u);
  EXPECT_EQ(s.binds, 0u);
  EXPECT_EQ(NodeOf("over"), "<gone>") << "evicted through the Eviction API";
  EXPECT_EQ(NodeOf("owed"), "");
  // The informer has not reported the eviction yet: still nominated, not bound.
  s = Cycle(now + 1);
  EXPECT_EQ(s.binds, 0u);
  EXPECT_EQ(s.evictions, 0u) << "the nomination holds the GPU; nothing is evicted twice";
  view_.DeletePod(Json(Pod("over", "b", "n1")));
  s = Cycle(now + 2);
  EXPECT_EQ(s.binds, 1u);
  EXPECT_EQ(NodeOf("owed"), "n1");
}

TEST_F(SchedulingCycleTest, ARefusedVictimIsLeftAloneForAWhileThenAskedAgain) {
  const int64_t now = 1796119200;
  // A PodDisruptionBudget says no, once.
  client_.InjectError("create", "pods", Status(StatusCode::kTooManyRequests, "disruption budget"),
                      1);
  CycleStats s = Cycle(now);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.nominated, 0u);
  EXPECT_EQ(NodeOf("over"), "n1");
  // The only victim said no: the owed pod waits rather than asking again
  // every cycle.
  s = Cycle(now + 1);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_EQ(s.pending, 1u);
  // After the hold the same reclaim is planned again, and this time it goes.
  s = Cycle(now + 61);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.nominated, 1u);
  EXPECT_EQ(NodeOf("over"), "<gone>");
}

TEST_F(SchedulingCycleTest, ADeletedQueueLosesItsGauges) {
  const int64_t now = 1796119200;
  auto series = [&](const std::string& queue) {
    const std::string text = registry_.Render();
    int n = 0;
    for (const char* metric :
         {"vtenant_scheduler_pending_pods", "vtenant_scheduler_queue_gpu_allocated",
          "vtenant_scheduler_queue_gpu_fair_share"})
      if (text.find(std::string(metric) + "{queue=\"" + queue + "\"}") != std::string::npos) ++n;
    return n;
  };
  Cycle(now);
  EXPECT_EQ(series("a"), 3);
  EXPECT_EQ(series("b"), 3);
  view_.DeleteQueue(Json(R"({"metadata":{"name":"b"}})"));
  Cycle(now + 1);
  EXPECT_EQ(series("a"), 3);
  EXPECT_EQ(series("b"), 0) << registry_.Render();
}

TEST_F(SchedulingCycleTest, ARefusedEvictionIsReplannedWithAnotherVictim) {
  const int64_t now = 1796119200;
  Add(res::kNodes, "", R"({"metadata":{"name":"n2","labels":{"nvidia.com/gpu.memory":"46068"}},
      "status":{"allocatable":{"cpu":"8","memory":"8Gi","nvidia.com/gpu":"1"},
      "conditions":[{"type":"Ready","status":"True"}]}})");
  Add(res::kPods, "ns", Pod("over2", "b", "n2"));
  client_.InjectError("create", "pods", Status(StatusCode::kTooManyRequests, "disruption budget"),
                      1);
  CycleStats s = Cycle(now);
  ASSERT_EQ(s.evictions, 1u);
  EXPECT_EQ(NodeOf("over"), "n1");
  EXPECT_EQ(NodeOf("over2"), "n2");
  const std::vector<std::string> refused_events = [&] {
    std::vector<std::string> out;
    Result<kube::ObjectList> events = client_.ListAll(res::kEvents, "ns");
    if (events.ok())
      for (const kube::Object& e : events->items)
        if (kube::GetString(e, {"reason"}) == "EvictionRefused")
          out.emplace_back(kube::GetString(e, {"involvedObject", "name"}));
    return out;
  }();
  ASSERT_EQ(refused_events.size(), 1u) << "the refused victim is told why it stays";
  const std::string first = refused_events[0];
  // The next cycle plans the reclaim again with the other victim.
  s = Cycle(now + 1);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.nominated, 1u);
  EXPECT_NE(NodeOf(first), "<gone>") << "the protected pod stays";
  EXPECT_EQ(NodeOf(first == "over" ? "over2" : "over"), "<gone>");
}

}  // namespace
}  // namespace vtenant::scheduler

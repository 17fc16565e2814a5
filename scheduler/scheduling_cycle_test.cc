// One scheduling cycle against an in-memory API server: reclaim evicts
// through the Eviction API, the winner waits (nominated) until its victim is
// gone, a refused eviction is planned again rather than forgotten, and a
// gang with sub-groups binds only when every sub-group has its minMember.
#include "scheduler/scheduling_cycle.h"

#include <gtest/gtest.h>

#include "base/rfc3339.h"
#include "kube/conditions.h"
#include "kube/json_builder.h"
#include "scheduler/kai_names.h"
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
        pending_(client_, events_,
                 [this](const std::string& key) { return Live(res::kPods, key); }),
        not_ready_(client_, events_,
                   [this](const std::string& key) { return Live(res::kPodGroups, key); },
                   {.event_type = "Normal", .event_reason = "NotReady", .mark_pods = false}),
        cycle_(view_, binder_, evictor_, reservations_, status_, pending_, not_ready_,
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
    return kube::ToJson(kube::BuildJson(kube::JsonObject{
        {"metadata", kube::JsonObject{{"name", name},
                                      {"namespace", "ns"},
                                      {"labels", kube::JsonObject{{"kai.scheduler/queue", queue}}},
                                      {"creationTimestamp", "2026-12-01T08:00:00Z"}}},
        {"spec",
         kube::JsonObject{
             {"schedulerName", "kai-scheduler"},
             {"nodeName", node},
             {"containers",
              kube::JsonArray{kube::JsonObject{
                  {"name", "c"},
                  {"resources",
                   kube::JsonObject{{"limits", kube::JsonObject{{"nvidia.com/gpu", "1"}}}}}}}}}},
        {"status", kube::JsonObject{{"startTime", "2026-12-01T08:00:00Z"}}}}));
  }

  std::string NodeOf(const std::string& name) { return FakeCluster::NodeOf("ns", name); }

  // A pod of PodGroup `group` in sub-group `sub` ("" for none) of queue a
  // asking for 3 CPUs, so a node of 8 takes two.
  static std::string GangPod(const std::string& name, const std::string& group,
                             const std::string& sub) {
    kube::JsonObject labels{{"kai.scheduler/queue", "a"}};
    if (!sub.empty()) labels.Set("kai.scheduler/subgroup-name", sub);
    return kube::ToJson(kube::BuildJson(kube::JsonObject{
        {"metadata", kube::JsonObject{{"name", name},
                                      {"namespace", "ns"},
                                      {"labels", labels},
                                      {"annotations", kube::JsonObject{{"pod-group-name", group}}},
                                      {"creationTimestamp", "2026-12-01T08:00:00Z"}}},
        {"spec", kube::JsonObject{
                     {"schedulerName", "kai-scheduler"},
                     {"containers",
                      kube::JsonArray{kube::JsonObject{
                          {"name", "c"},
                          {"resources",
                           kube::JsonObject{{"requests", kube::JsonObject{{"cpu", "3"}}}}}}}}}}}));
  }

  // The sub-group tests' start: PodGroup ns/job of queue a, minMember 1,
  // with `sub_groups` (its spec.subGroups, a JSON array), alone on n1 (8
  // CPUs): the reclaim the fixture sets up would otherwise run alongside.
  void StartSubGroupJob(const std::string& sub_groups) {
    view_.DeletePod(Json(Pod("over", "b", "n1")));
    view_.DeletePod(Json(Pod("owed", "a", "")));
    Add(res::kPodGroups, "ns",
        kube::ToJson(kube::BuildJson(kube::JsonObject{
            {"metadata", kube::JsonObject{{"name", "job"}, {"namespace", "ns"}}},
            {"spec", kube::JsonObject{{"minMember", 1},
                                      {"queue", "a"},
                                      {"subGroups", kube::JsonValue(Json(sub_groups))}}}})));
  }

  // The time-based fairshare tests' start: queues c and d, equal and
  // without quota (`spec` adds to their spec), in place of a and b's pods;
  // c's pod "held" has the GPU.
  void StartQueuesSharingTheGpu(const std::string& spec = "") {
    view_.DeletePod(Json(Pod("over", "b", "n1")));
    view_.DeletePod(Json(Pod("owed", "a", "")));
    for (const std::string q : {"c", "d"})
      Add(res::kQueues, "",
          R"({"metadata":{"name":")" + q +
              R"("},"spec":{"resources":{"gpu":{"quota":0,"limit":-1}})" + spec + "}}");
    Add(res::kPods, "ns", Pod("held", "c", "n1"));
  }

  // The messages of the Unschedulable Events about pod ns/name.
  std::vector<std::string> WaitReasons(const std::string& name) {
    pending_.Drain();
    std::vector<std::string> out;
    Result<kube::ObjectList> events = client_.ListAll(res::kEvents, "ns");
    if (events.ok())
      for (const kube::Object& e : events->items)
        if (kube::GetString(e, {"reason"}) == "Unschedulable" &&
            kube::GetString(e, {"involvedObject", "name"}) == name)
          out.emplace_back(kube::GetString(e, {"message"}));
    return out;
  }

  // Pod ns/name's PodScheduled condition as "<status> <reason>: <message>",
  // "" if it has none.
  std::string PodScheduled(const std::string& name) {
    pending_.Drain();
    Result<kube::Object> pod = client_.Get(res::kPods, "ns", name);
    if (!pod.ok()) return "<gone>";
    std::optional<kube::Condition> c = kube::FindCondition(*pod, "PodScheduled");
    return c ? c->status + " " + c->reason + ": " + c->message : "";
  }

  // The `field` ("message", or "reasons" for the reason of its first
  // entry: KAI's kind) of PodGroup ns/name's schedulingConditions entry, ""
  // if none.
  std::string GroupConditionField(const std::string& name, const std::string& field) {
    status_.Flush();
    kube::ObjectPtr g = Live(res::kPodGroups, "ns/" + name);
    if (g == nullptr) return "<gone>";
    const rapidjson::Value* c = kube::Find(*g, {"status", "schedulingConditions"});
    if (c == nullptr || !c->IsArray() || c->Empty()) return "";
    if (field != "reasons") return std::string(kube::GetString((*c)[0], {field}));
    const rapidjson::Value* reasons = kube::Find((*c)[0], {"reasons"});
    if (reasons == nullptr || !reasons->IsArray() || reasons->Empty()) return "";
    return std::string(kube::GetString((*reasons)[0], {"reason"}));
  }
  std::string GroupCondition(const std::string& name) {
    return GroupConditionField(name, "message");
  }
  std::string GroupReasonKind(const std::string& name) {
    return GroupConditionField(name, "reasons");
  }

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
  PendingEvents not_ready_;
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

// KAI's time-based fairshare: two queues of equal weight and no quota want
// the one GPU. Without history the one holding it keeps it (each is owed
// half, and the leftover GPU goes to the older queue). With history, the
// holder's usage takes its over-quota share down to nothing, and the other
// queue reclaims the GPU.
TEST_F(SchedulingCycleTest, TimeBasedFairshareGivesTheGpuToTheQueueThatUsedLess) {
  StartQueuesSharingTheGpu();
  Add(res::kPods, "ns", Pod("wants", "d", ""));
  const int64_t now = 1796119200;
  for (int64_t t = now; t < now + 60; t += 10) EXPECT_EQ(Cycle(t).evictions, 0u) << "no history";

  kube::Registry registry;
  SchedulingCycle timed(view_, binder_, evictor_, reservations_, status_, pending_, not_ready_,
                        {.usage_history = UsageHistory::Params{.window_s = 100, .resolution_s = 10},
                         .registry = &registry});
  auto cycle = [&](int64_t t) {
    Result<CycleStats> s = timed.RunOnce(t);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    binder_.WaitIdle();
    return s.ok() ? *s : CycleStats{};
  };
  EXPECT_EQ(cycle(now + 60).evictions, 0u) << "the first cycle starts the history";
  EXPECT_EQ(cycle(now + 70).evictions, 0u) << "the second records its first ten seconds";
  CycleStats s = cycle(now + 80);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.nominated, 1u);
  EXPECT_EQ(NodeOf("held"), "<gone>");
  EXPECT_NE(registry.Render().find(R"(vtenant_scheduler_queue_gpu_usage{queue="c"} 1)"),
            std::string::npos)
      << registry.Render();
}

// Over time the two queues take turns, as in KAI's time-based fairshare
// simulations: each always has a pod waiting for the one GPU, and each
// holds it for a fair part of twenty minutes.
TEST_F(SchedulingCycleTest, TimeBasedFairshareMakesQueuesTakeTurns) {
  // A pod, once running, is not reclaimed for a minute: without it the
  // GPU would change hands every cycle once both queues' usage is even.
  StartQueuesSharingTheGpu(R"(,"reclaimMinRuntime":"60s")");
  std::map<std::string, std::string> queue_of = {{"held", "c"}};
  const int64_t now = 1796119200;
  std::map<std::string, std::string> started;  // by pod: status.startTime once bound
  int made = 0;
  // A new pod of `queue`, a job of its own (a PodGroup, as the grouper
  // makes one).
  auto wait = [&](const std::string& queue) {
    const std::string name = queue + "-" + std::to_string(made++);
    queue_of[name] = queue;
    Add(res::kPodGroups, "ns",
        R"({"metadata":{"name":")" + name + R"(","namespace":"ns"},"spec":{"minMember":1,
            "queue":")" +
            queue + R"("}})");
    kube::Object pod = Json(Pod(name, queue, ""));
    kube::SetString(pod, {"metadata", "annotations"}, "pod-group-name", name);
    Add(res::kPods, "ns", kube::ToJson(pod));
  };
  wait("d");
  kube::Registry registry;
  SchedulingCycle timed(view_, binder_, evictor_, reservations_, status_, pending_, not_ready_,
                        {.usage_history = UsageHistory::Params{.window_s = 120, .resolution_s = 10},
                         .registry = &registry});
  std::map<std::string, int64_t> held_for;  // seconds, by queue
  int turns = 0;
  std::string holder = "c";
  for (int64_t t = now; t < now + 1200; t += 10) {
    ASSERT_TRUE(timed.RunOnce(t).ok());
    binder_.WaitIdle();
    // What the informers would tell the view: evicted pods gone (each
    // replaced by a new one of its queue), bound ones bound.
    for (const auto& [name, queue] : std::map(queue_of)) {
      const std::string node = NodeOf(name);
      if (node == "<gone>") {
        view_.DeletePod(Json(Pod(name, queue, "n1")));
        queue_of.erase(name);
        wait(queue);
      } else if (node == "n1") {
        // As the kubelet would, it starts when bound.
        kube::Object pod = kube::Clone(*Live(res::kPods, "ns/" + name));
        if (name != "held")
          kube::SetString(
              pod, {"status"}, "startTime",
              started.try_emplace(name, FormatRfc3339(std::chrono::system_clock::from_time_t(t)))
                  .first->second);
        view_.UpsertPod(pod);
        held_for[queue] += 10;
        if (queue != holder) ++turns, holder = queue;
      }
    }
  }
  EXPECT_GE(turns, 4);
  EXPECT_GE(held_for["c"], 400) << "of 1200 s";
  EXPECT_GE(held_for["d"], 400) << "of 1200 s";
}

// The usage history outlives the scheduler: kept in a ConfigMap, it is read
// back by the next one, whose first cycle already sees the holder's usage.
TEST_F(SchedulingCycleTest, TheUsageHistoryOutlivesARestart) {
  StartQueuesSharingTheGpu();
  const int64_t now = 1796119200;
  ConfigMapUsageStore store(client_, "kai", "vtenant-scheduler-usage");
  const CycleOptions options{
      .usage_history = UsageHistory::Params{.window_s = 100, .resolution_s = 10},
      .usage_store = &store};
  {
    kube::Registry registry;
    CycleOptions first = options;
    first.registry = &registry;
    SchedulingCycle before(view_, binder_, evictor_, reservations_, status_, pending_, not_ready_,
                           first);
    for (int64_t t = now; t <= now + 20; t += 10) ASSERT_TRUE(before.RunOnce(t).ok());
  }
  Result<kube::Object> saved = client_.Get(res::kConfigMaps, "kai", "vtenant-scheduler-usage");
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  EXPECT_NE(kube::GetString(*saved, {"data", "history"}).find(R"("c")"), std::string::npos);

  Add(res::kPods, "ns", Pod("wants", "d", ""));
  kube::Registry registry;
  CycleOptions second = options;
  second.registry = &registry;
  SchedulingCycle after(view_, binder_, evictor_, reservations_, status_, pending_, not_ready_,
                        second);
  Result<CycleStats> s = after.RunOnce(now + 30);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  binder_.WaitIdle();
  EXPECT_EQ(s->evictions, 1u) << "c's usage was read back";
  EXPECT_EQ(NodeOf("held"), "<gone>");
}

TEST_F(SchedulingCycleTest, ACpuPodIsPlacedBesideANominationWhoseVictimStillLeaves) {
  const int64_t now = 1796119200;
  auto add_cpu_pod = [&](const std::string& name, const std::string& queue) {
    Add(res::kPods, "ns",
        kube::ToJson(kube::BuildJson(kube::JsonObject{
            {"metadata",
             kube::JsonObject{{"name", name},
                              {"namespace", "ns"},
                              {"labels", kube::JsonObject{{"kai.scheduler/queue", queue}}}}},
            {"spec",
             kube::JsonObject{
                 {"schedulerName", "kai-scheduler"},
                 {"containers",
                  kube::JsonArray{kube::JsonObject{
                      {"name", "c"},
                      {"resources",
                       kube::JsonObject{{"requests", kube::JsonObject{{"cpu", "1"}}}}}}}}}}})));
  };
  CycleStats s = Cycle(now);
  ASSERT_EQ(s.nominated, 1u);
  // The victim is still on n1 (the informer has not seen it go); n1's GPU
  // is spoken for twice, but its CPUs are free, so a pod asking for CPU
  // only fits there, whatever its queue. A GPU pod does not.
  add_cpu_pod("cpu-a", "a");
  add_cpu_pod("cpu-b", "b");
  Add(res::kPods, "ns", Pod("gpu-a", "a", ""));
  s = Cycle(now + 1);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_EQ(NodeOf("cpu-a"), "n1") << ::testing::PrintToString(WaitReasons("cpu-a"));
  EXPECT_EQ(NodeOf("cpu-b"), "n1") << ::testing::PrintToString(WaitReasons("cpu-b"));
  EXPECT_EQ(NodeOf("gpu-a"), "");
  EXPECT_EQ(NodeOf("owed"), "") << "still nominated: its victim has not gone";
  // Now the informer shows the victim terminating: it holds its GPU as a
  // holder, and a CPU pod still fits beside it and the nomination.
  kube::Object leaving = Json(Pod("over", "b", "n1"));
  kube::SetString(leaving, {"metadata"}, "deletionTimestamp", "2026-12-01T09:00:00Z");
  kube::SetString(leaving, {"metadata"}, "resourceVersion", "leaving");
  view_.UpsertPod(leaving);
  add_cpu_pod("cpu-c", "a");
  s = Cycle(now + 2);
  EXPECT_EQ(NodeOf("cpu-c"), "n1") << ::testing::PrintToString(WaitReasons("cpu-c"));
  EXPECT_EQ(NodeOf("gpu-a"), "");
  EXPECT_EQ(NodeOf("owed"), "");
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

TEST_F(SchedulingCycleTest, SubGroupsBindTogetherOnlyWhenEachHasItsMinMember) {
  const int64_t now = 1796119200;
  // The group's own minMember (1) is met by any pod; the sub-groups ask for
  // a leader and two workers.
  StartSubGroupJob(R"([{"name":"leader","minMember":1},{"name":"workers","minMember":2}])");
  Add(res::kPods, "ns", GangPod("leader-0", "job", "leader"));
  Add(res::kPods, "ns", GangPod("worker-0", "job", "workers"));
  // Room for both, but the workers are one short.
  Cycle(now);
  EXPECT_EQ(NodeOf("leader-0"), "");
  EXPECT_EQ(NodeOf("worker-0"), "");
  // All three exist, but n1's 8 CPUs take two of them.
  Add(res::kPods, "ns", GangPod("worker-1", "job", "workers"));
  Cycle(now + 1);
  EXPECT_EQ(NodeOf("leader-0"), "");
  EXPECT_EQ(NodeOf("worker-0"), "");
  EXPECT_EQ(NodeOf("worker-1"), "");
  // A second node: every sub-group can have its minimum, and all bind at once.
  Add(res::kNodes, "",
      R"({"metadata":{"name":"n2"},"status":{"allocatable":{"cpu":"8","memory":"8Gi"},
      "conditions":[{"type":"Ready","status":"True"}]}})");
  Cycle(now + 2);
  int bound = 0;
  for (const char* p : {"leader-0", "worker-0", "worker-1"}) bound += !NodeOf(p).empty();
  EXPECT_EQ(bound, 3);
}

TEST_F(SchedulingCycleTest, APodNamingAnUnknownSubGroupWaitsAndSaysWhich) {
  const int64_t now = 1796119200;
  StartSubGroupJob(R"([{"name":"decode"},{"name":"d-workers","parent":"decode"}])");
  Add(res::kPods, "ns", GangPod("typo", "job", "wrokers"));
  Add(res::kPods, "ns", GangPod("to-parent", "job", "decode"));
  Add(res::kPods, "ns", GangPod("fine", "job", "d-workers"));
  Add(res::kPods, "ns", GangPod("unlabelled", "job", ""));
  Cycle(now);
  EXPECT_EQ(NodeOf("unlabelled"), "");
  EXPECT_EQ(NodeOf("typo"), "");
  EXPECT_EQ(NodeOf("to-parent"), "");
  EXPECT_EQ(NodeOf("fine"), "n1");
  const std::vector<std::string> typo = WaitReasons("typo");
  ASSERT_EQ(typo.size(), 1u);
  EXPECT_NE(typo[0].find("sub-group \"wrokers\""), std::string::npos) << typo[0];
  EXPECT_NE(typo[0].find("(it has d-workers)"), std::string::npos) << typo[0];
  // The pod says it too, as kube-scheduler and KAI mark a waiting pod; the
  // bound one is left alone.
  EXPECT_EQ(PodScheduled("typo"), "False Unschedulable: " + typo[0]);
  EXPECT_EQ(PodScheduled("fine"), "");
  const std::vector<std::string> parent = WaitReasons("to-parent");
  ASSERT_EQ(parent.size(), 1u);
  EXPECT_NE(parent[0].find("\"decode\" of PodGroup job only groups other sub-groups"),
            std::string::npos)
      << parent[0];
  const std::vector<std::string> unlabelled = WaitReasons("unlabelled");
  ASSERT_EQ(unlabelled.size(), 1u);
  EXPECT_NE(unlabelled[0].find("PodGroup job has sub-groups (d-workers); label the pod "
                               "kai.scheduler/subgroup-name"),
            std::string::npos)
      << unlabelled[0];
}

TEST_F(SchedulingCycleTest, AMalformedSubGroupListKeepsTheGroupOffAndSaysSo) {
  const int64_t now = 1796119200;
  StartSubGroupJob(R"([{"name":"workers","minMember":1},{"name":"workers","minMember":2}])");
  Add(res::kPods, "ns", GangPod("worker-0", "job", "workers"));
  Cycle(now);
  EXPECT_EQ(NodeOf("worker-0"), "") << "nothing is guessed from a list with a mistake in it";
  const std::string condition = GroupCondition("job");
  EXPECT_NE(condition.find("spec.subGroups[1] repeats the name \"workers\""), std::string::npos)
      << condition;
  EXPECT_EQ(GroupReasonKind("job"), "InvalidPodGroup");
  const std::vector<std::string> reasons = WaitReasons("worker-0");
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("PodGroup job cannot be scheduled until it is fixed"),
            std::string::npos)
      << reasons[0];
  // Fixed, it schedules.
  kube::Object fixed =
      Json(R"({"metadata":{"name":"job","namespace":"ns","resourceVersion":"fixed"},
      "spec":{"minMember":1,"queue":"a","subGroups":[{"name":"workers","minMember":1}]}})");
  view_.UpsertPodGroup(fixed);
  Cycle(now + 1);
  EXPECT_EQ(NodeOf("worker-0"), "n1");
}

// A waiting PodGroup's condition names its obstacle as KAI does, under
// reasons[]: OverLimit for a queue at its limit, QueueDoesNotExist for a
// queue that is not there, PodSchedulingErrors for pods that do not fit.
TEST_F(SchedulingCycleTest, AWaitingGroupNamesItsObstacleInKaisWords) {
  const int64_t now = 1796119200;
  Add(res::kQueues, "",
      R"({"metadata":{"name":"capped"},"spec":{"resources":{"cpu":{"quota":0,"limit":1}}}})");
  for (const auto& [group, queue] : {std::pair{"capped-job", "capped"},
                                     std::pair{"lost-job", "nowhere"}, std::pair{"big-job", "a"}}) {
    Add(res::kPodGroups, "ns",
        kube::ToJson(kube::BuildJson(
            kube::JsonObject{{"metadata", kube::JsonObject{{"name", group}, {"namespace", "ns"}}},
                             {"spec", kube::JsonObject{{"minMember", 1}, {"queue", queue}}}})));
  }
  Add(res::kPods, "ns", GangPod("capped-0", "capped-job", ""));
  Add(res::kPods, "ns", GangPod("lost-0", "lost-job", ""));
  Add(res::kPods, "ns",
      R"({"metadata":{"name":"big-0","namespace":"ns","labels":{"kai.scheduler/queue":"a"},
      "annotations":{"pod-group-name":"big-job"},"creationTimestamp":"2026-12-01T08:00:00Z"},
      "spec":{"schedulerName":"kai-scheduler",
      "containers":[{"name":"c","resources":{"requests":{"cpu":"64"}}}]}})");
  Cycle(now);
  EXPECT_EQ(GroupReasonKind("capped-job"), "OverLimit") << GroupCondition("capped-job");
  EXPECT_NE(GroupCondition("capped-job").find("queue capped would exceed its cpu limit"),
            std::string::npos)
      << GroupCondition("capped-job");
  EXPECT_EQ(GroupReasonKind("lost-job"), "QueueDoesNotExist");
  EXPECT_NE(GroupCondition("lost-job").find("queue \"nowhere\" does not exist"), std::string::npos)
      << GroupCondition("lost-job");
  EXPECT_EQ(GroupReasonKind("big-job"), "PodSchedulingErrors") << GroupCondition("big-job");
}

// The Events of `reason` on object `name` of namespace ns.
std::vector<std::string> EventsOf(kube::FakeClient& client, const std::string& name,
                                  const std::string& reason) {
  std::vector<std::string> out;
  Result<kube::ObjectList> events = client.ListAll(res::kEvents, "ns");
  if (events.ok())
    for (const kube::Object& e : events->items)
      if (kube::GetString(e, {"reason"}) == reason &&
          kube::GetString(e, {"involvedObject", "name"}) == name)
        out.emplace_back(std::string(kube::GetString(e, {"type"})) + " " +
                         std::string(kube::GetString(e, {"message"})));
  return out;
}

// A pod held by scheduling gates is not bound (the API server would refuse
// it) and not called unschedulable; a gang it belongs to waits for it, and
// its PodGroup says so as KAI does, with a NotReady Event. Once the gate
// goes, the gang binds.
TEST_F(SchedulingCycleTest, GatedPodsWaitAndTheirGangIsNotReady) {
  const int64_t now = 1796119200;
  StartSubGroupJob("[]");
  kube::Object group = client_.Get(res::kPodGroups, "ns", "job").value();
  group["spec"]["minMember"].SetInt(2);
  ASSERT_TRUE(client_.Update(res::kPodGroups, "ns", group).ok());
  view_.UpsertPodGroup(client_.Get(res::kPodGroups, "ns", "job").value());
  Add(res::kPods, "ns", GangPod("open", "job", ""));
  kube::Object gated = Json(GangPod("gated", "job", ""));
  kube::Object gates = Json(R"([{"name":"example.com/quota-check"}])");
  gated["spec"].AddMember("schedulingGates", rapidjson::Value(gates, gated.GetAllocator()),
                          gated.GetAllocator());
  Add(res::kPods, "ns", kube::ToJson(gated));
  Cycle(now);
  EXPECT_EQ(NodeOf("open"), "");
  EXPECT_EQ(NodeOf("gated"), "");
  not_ready_.Drain();
  EXPECT_EQ(EventsOf(client_, "job", "NotReady"),
            std::vector<std::string>{"Normal Job is not ready for scheduling. Waiting for 2 pods, "
                                     "currently 2 exist, 1 are gated"});
  EXPECT_TRUE(WaitReasons("gated").empty()) << "a gated pod is not unschedulable";
  EXPECT_EQ(PodScheduled("gated"), "");
  EXPECT_TRUE(EventsOf(client_, "gated", "FailedBinding").empty())
      << "no binding is tried for a gated pod";

  // The gate goes: the gang is ready and binds whole.
  kube::Object opened = client_.Get(res::kPods, "ns", "gated").value();
  opened["spec"].RemoveMember("schedulingGates");
  ASSERT_TRUE(client_.Update(res::kPods, "ns", opened).ok());
  view_.UpsertPod(client_.Get(res::kPods, "ns", "gated").value());
  Cycle(now + 1);
  EXPECT_EQ(NodeOf("open"), "n1");
  EXPECT_EQ(NodeOf("gated"), "n1");
}

// A gang that lost members (two of three run; the third cannot fit) holds
// what it cannot use: once it has run so for its grace, the cycle evicts it
// so it can start again whole. The grace is the PodGroup's
// spec.stalenessGracePeriod, else the default 60 s; negative: never.
TEST_F(SchedulingCycleTest, AGangRunningBelowItsMinimumIsEvictedAfterItsGrace) {
  const int64_t now = 1796119200;
  view_.DeletePod(Json(Pod("over", "b", "n1")));
  view_.DeletePod(Json(Pod("owed", "a", "")));
  struct Row {
    const char* grace;      // spec.stalenessGracePeriod, "" for none
    int64_t evicted_after;  // -1: never
  };
  int round = 0;
  for (const Row& row : {Row{"", 60}, Row{"10s", 10}, Row{"-1s", -1}}) {
    const std::string group = "ring" + std::to_string(round++);
    kube::JsonObject spec{{"minMember", 3}, {"queue", "a"}};
    if (*row.grace != '\0') spec.Set("stalenessGracePeriod", row.grace);
    Add(res::kPodGroups, "ns",
        kube::ToJson(kube::BuildJson(
            kube::JsonObject{{"metadata", kube::JsonObject{{"name", group}, {"namespace", "ns"}}},
                             {"spec", spec}})));
    // Two members run on n1 (3 CPUs each of its 8); the third does not fit.
    for (int i = 0; i < 3; ++i) {
      kube::Object pod = Json(GangPod(group + "-" + std::to_string(i), group, ""));
      if (i < 2) kube::SetString(pod, {"spec"}, "nodeName", "n1");
      Add(res::kPods, "ns", kube::ToJson(pod));
    }
    const int64_t start = now + 1000 * round;
    Cycle(start);
    EXPECT_EQ(NodeOf(group + "-0"), "n1") << row.grace;
    const int64_t last = row.evicted_after < 0 ? 3600 : row.evicted_after;
    Cycle(start + last - 1);
    EXPECT_EQ(NodeOf(group + "-0"), "n1") << row.grace << ": within its grace";
    Cycle(start + last);
    if (row.evicted_after < 0) {
      EXPECT_EQ(NodeOf(group + "-0"), "n1") << "a negative grace is never past";
      EXPECT_EQ(NodeOf(group + "-1"), "n1");
    } else {
      EXPECT_EQ(NodeOf(group + "-0"), "<gone>") << row.grace << ": evicted";
      EXPECT_EQ(NodeOf(group + "-1"), "<gone>") << row.grace;
    }
    for (int i = 0; i < 3; ++i)
      view_.DeletePod(Json(GangPod(group + "-" + std::to_string(i), group, "")));
  }
}

// A job within its spec.preemptionDelay takes only free room: it reclaims
// nothing, and its PodGroup says until when, until the delay has passed.
TEST_F(SchedulingCycleTest, AJobWithinItsPreemptionDelayEvictsNobodyUntilItPasses) {
  // The fake server stamps creationTimestamp with the clock's time.
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  view_.DeletePod(Json(Pod("owed", "a", "")));
  Add(res::kPodGroups, "ns",
      kube::ToJson(kube::BuildJson(kube::JsonObject{
          {"metadata", kube::JsonObject{{"name", "late"}, {"namespace", "ns"}}},
          {"spec",
           kube::JsonObject{{"minMember", 1}, {"queue", "a"}, {"preemptionDelay", "10m"}}}})));
  kube::Object late = Json(Pod("late-0", "a", ""));
  kube::SetString(late, {"metadata", "annotations"}, "pod-group-name", "late");
  Add(res::kPods, "ns", kube::ToJson(late));
  CycleStats s = Cycle(now + 60);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_EQ(NodeOf("over"), "n1");
  EXPECT_NE(
      GroupCondition("late").find("within its preemption delay and may not evict others before"),
      std::string::npos)
      << GroupCondition("late");
  s = Cycle(now + 601);
  EXPECT_EQ(s.evictions, 1u) << "the delay has passed: reclaim as before";
  EXPECT_EQ(NodeOf("over"), "<gone>");
}

// A scheduler that starts afresh reads since when a gang has been short
// from the annotation the one before it wrote, and does not grant it a new
// grace; the stale gang is evicted at its first cycle.
TEST_F(SchedulingCycleTest, AStaleGangsTimeIsReadBackAfterARestart) {
  const int64_t now = 1796119200;
  view_.DeletePod(Json(Pod("over", "b", "n1")));
  view_.DeletePod(Json(Pod("owed", "a", "")));
  Add(res::kPodGroups, "ns",
      kube::ToJson(kube::BuildJson(kube::JsonObject{
          {"metadata",
           kube::JsonObject{{"name", "ring"},
                            {"namespace", "ns"},
                            {"annotations",
                             kube::JsonObject{{kStalePodGroupTimestampAnnotation,
                                               FormatRfc3339(std::chrono::system_clock::time_point(
                                                   std::chrono::seconds(now - 90)))}}}}},
          {"spec", kube::JsonObject{{"minMember", 3}, {"queue", "a"}}}})));
  for (int i = 0; i < 2; ++i) {
    kube::Object pod = Json(GangPod("ring-" + std::to_string(i), "ring", ""));
    kube::SetString(pod, {"spec"}, "nodeName", "n1");
    Add(res::kPods, "ns", kube::ToJson(pod));
  }
  Cycle(now);
  EXPECT_EQ(NodeOf("ring-0"), "<gone>") << "short for 90 s already, past the 60 s grace";
  EXPECT_EQ(NodeOf("ring-1"), "<gone>");
}

}  // namespace
}  // namespace vtenant::scheduler

// ClusterView: what a live cluster adds to the snapshot — terminating and
// foreign pods hold resources, binds in flight and nominations hold theirs,
// pods without a usable queue wait with a reason.
#include "scheduler/cluster_view.h"

#include <gtest/gtest.h>

#include "scheduler-core/scheduler.h"

namespace vtenant::scheduler {
namespace {

kube::Object Json(const std::string& text) {
  Result<kube::Object> o = kube::ParseJson(text);
  EXPECT_TRUE(o.ok()) << o.status().ToString() << " in " << text;
  return o.ok() ? std::move(o).value() : kube::Object(rapidjson::kObjectType);
}

kube::Object Node(const std::string& name, int gpus) {
  return Json(R"({"metadata":{"name":")" + name + R"(","labels":{"nvidia.com/gpu.memory":"46068"}},
      "status":{"allocatable":{"cpu":"16","memory":"64Gi","pods":"110","nvidia.com/gpu":")" +
              std::to_string(gpus) + R"("},"conditions":[{"type":"Ready","status":"True"}]}})");
}

kube::Object Queue(const std::string& name, const std::string& parent = "") {
  return Json(R"({"metadata":{"name":")" + name + R"("},"spec":{"parentQueue":")" + parent +
              R"(","resources":{"gpu":{"quota":-1,"limit":-1}}}})");
}

struct P {
  std::string name;
  std::string queue = "team";
  int gpus = 1;
  std::string fraction;
  std::string node;
  std::string scheduler = "kai-scheduler";
  bool terminating = false;
  std::string extra_annotations;
};

kube::Object Pod(const P& p) {
  std::string ann = p.fraction.empty() ? "" : R"("gpu-fraction":")" + p.fraction + R"(")";
  if (!p.extra_annotations.empty()) ann += (ann.empty() ? "" : ",") + p.extra_annotations;
  std::string limits =
      p.gpus > 0 ? R"({"nvidia.com/gpu":")" + std::to_string(p.gpus) + R"("})" : "{}";
  return Json(R"({"metadata":{"name":")" + p.name + R"(","namespace":"ns","uid":"u-)" + p.name +
              R"(","labels":{"kai.scheduler/queue":")" + p.queue + R"("},"annotations":{)" + ann +
              "}" + (p.terminating ? R"(,"deletionTimestamp":"2026-12-01T09:00:00Z")" : "") +
              R"(},"spec":{"schedulerName":")" + p.scheduler + R"(","nodeName":")" + p.node +
              R"(","containers":[{"name":"c","resources":{"limits":)" + limits + "}}]}}");
}

class ClusterViewTest : public ::testing::Test {
 protected:
  ClusterViewTest() : view_({}) {
    view_.UpsertNode(Node("n1", 2));
    view_.UpsertQueue(Queue("team"));
  }
  World Build() {
    Result<World> w = view_.Build(100);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(w).value() : World{};
  }
  ClusterView view_;
};

TEST_F(ClusterViewTest, ForeignAndTerminatingPodsHoldTheirGpus) {
  view_.UpsertPod(Pod({.name = "theirs", .node = "n1", .scheduler = "default-scheduler"}));
  view_.UpsertPod(Pod({.name = "leaving", .node = "n1", .terminating = true}));
  view_.UpsertPod(Pod({.name = "new"}));
  World w = Build();
  sched::Decisions d = sched::RunCycle(w.snapshot);
  EXPECT_TRUE(d.binds.empty()) << "both GPUs are held";
  ASSERT_EQ(d.pending.size(), 1u);
  EXPECT_EQ(w.snapshot.pods[d.pending[0].pod].name, "ns/new");
  // Holders are never victims.
  for (sched::PodId p = 0; p < w.snapshot.pods.size(); ++p)
    EXPECT_EQ(w.movable[p], w.snapshot.pods[p].name == "ns/new") << w.snapshot.pods[p].name;
}

TEST_F(ClusterViewTest, AssumedPlacementsHoldUntilTheInformerShowsTheBind) {
  view_.UpsertPod(Pod({.name = "a"}));
  view_.UpsertPod(Pod({.name = "b"}));
  view_.UpsertPod(Pod({.name = "c"}));
  view_.Assume("ns/a", {"n1", {0}, 1000, false});
  view_.Assume("ns/b", {"n1", {1}, 1000, false});
  EXPECT_EQ(view_.PendingCount(), 1u);
  sched::Decisions d = sched::RunCycle(Build().snapshot);
  EXPECT_TRUE(d.binds.empty());
  // The informer catches up: bound, no longer assumed, still counted.
  view_.UpsertPod(Pod({.name = "a", .node = "n1"}));
  view_.Forget("ns/b");
  d = sched::RunCycle(Build().snapshot);
  EXPECT_EQ(d.binds.size(), 1u);
}

TEST_F(ClusterViewTest, NominationsHoldAndBecomeReadyWhenVictimsAreGone) {
  view_.UpsertPod(Pod({.name = "victim", .node = "n1", .terminating = true}));
  view_.UpsertPod(Pod({.name = "winner"}));
  view_.Nominate("ns/winner", {"n1", {0}, 1000, false}, {"ns/victim"}, 100);
  EXPECT_TRUE(view_.NominationsReady(100).empty());
  view_.UpsertPod(Pod({.name = "other"}));
  // The winner holds device 0, the leaving victim device 1: nothing for `other`.
  sched::Decisions d = sched::RunCycle(Build().snapshot);
  EXPECT_TRUE(d.binds.empty());
  view_.DeletePod(Pod({.name = "victim"}));
  auto ready = view_.NominationsReady(100);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].first, "ns/winner");
}

TEST_F(ClusterViewTest, AVictimNotYetSeenLeavingStillHoldsTheNomination) {
  // Evicted a moment ago: the informer has not even shown it terminating.
  view_.UpsertPod(Pod({.name = "victim", .node = "n1"}));
  view_.UpsertPod(Pod({.name = "winner"}));
  view_.Nominate("ns/winner", {"n1", {0}, 1000, false}, {"ns/victim"}, 100);
  EXPECT_TRUE(view_.NominationsReady(101).empty());
  // A nomination whose victim never leaves is given up, and planned again.
  EXPECT_TRUE(view_.NominationsReady(100 + 301).empty());
  view_.DeletePod(Pod({.name = "victim"}));
  EXPECT_TRUE(view_.NominationsReady(402).empty()) << "dropped, not kept";
}

TEST_F(ClusterViewTest, SharingPodsKeepTheirDevicesAndWholeGpusTakeTheOthers) {
  view_.UpsertPod(Pod({.name = "half",
                       .gpus = 0,
                       .fraction = "0.5",
                       .node = "n1",
                       .extra_annotations = R"("runai-gpu":"0")"}));
  view_.UpsertPod(Pod({.name = "whole", .node = "n1"}));
  World w = Build();
  for (const sched::Pod& p : w.snapshot.pods) {
    if (p.name == "ns/half") EXPECT_EQ(p.allocation.device_mask, 0b01u);
    if (p.name == "ns/whole") EXPECT_EQ(p.allocation.device_mask, 0b10u);
  }
  EXPECT_EQ(view_.SharedDevicesInUse(), (std::set<std::pair<std::string, int>>{{"n1", 0}}));
}

TEST_F(ClusterViewTest, PodsWithoutAUsableQueueWaitWithAReason) {
  view_.UpsertQueue(Queue("org"));
  view_.UpsertQueue(Queue("child", "org"));
  view_.UpsertPod(Pod({.name = "lost", .queue = "nope"}));
  view_.UpsertPod(Pod({.name = "parent", .queue = "org"}));
  view_.UpsertPod(Pod({.name = "bad", .fraction = "2"}));
  World w = Build();
  std::map<std::string, std::string> why;
  for (const Unschedulable& u : w.unschedulable) why[u.key] = u.reason;
  EXPECT_NE(why["ns/lost"].find("queue \"nope\" does not exist"), std::string::npos)
      << why["ns/lost"];
  EXPECT_NE(why["ns/parent"].find("parent queue"), std::string::npos) << why["ns/parent"];
  EXPECT_NE(why["ns/bad"].find("gpu-fraction"), std::string::npos) << why["ns/bad"];
  EXPECT_TRUE(w.snapshot.pods.empty());
}

TEST_F(ClusterViewTest, PodGroupsGangTheirPods) {
  view_.UpsertPodGroup(Json(
      R"({"metadata":{"name":"train","namespace":"ns"},"spec":{"minMember":3,"queue":"team"}})"));
  for (const char* n : {"w0", "w1", "w2"})
    view_.UpsertPod(Pod({.name = n, .extra_annotations = R"("pod-group-name":"train")"}));
  World w = Build();
  EXPECT_TRUE(w.podgroups.contains("ns/train"));
  sched::Decisions d = sched::RunCycle(w.snapshot);
  EXPECT_TRUE(d.binds.empty()) << "three pods, two GPUs: all or nothing";
  EXPECT_EQ(d.pending.size(), 3u);
}

TEST_F(ClusterViewTest, NodeAffinityTheCoreCannotExpressIsResolvedToNodeNames) {
  kube::Object labelled = Node("n2", 2);
  kube::SetString(labelled, {"metadata", "labels"}, "zone", "b");
  view_.UpsertNode(labelled);
  view_.UpsertNode(Node("n3", 2));
  // Not in zone b, and not n1: only n3 qualifies.
  kube::Object pod = Pod({.name = "picky"});
  kube::Object affinity =
      Json(R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{
      "nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"DoesNotExist"}],
      "matchFields":[{"key":"metadata.name","operator":"NotIn","values":["n1"]}]}]}}})");
  pod["spec"].AddMember("affinity", rapidjson::Value(affinity, pod.GetAllocator()),
                        pod.GetAllocator());
  view_.UpsertPod(pod);
  World w = Build();
  ASSERT_EQ(w.snapshot.pods.size(), 1u);
  sched::Decisions d = sched::RunCycle(w.snapshot);
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(w.snapshot.nodes[d.binds[0].allocation.node].name, "n3");

  // No node qualifies: the pod waits, saying why.
  kube::Object nowhere = Pod({.name = "nowhere"});
  kube::Object none = Json(R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{
      "nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["c"]}]},
      {"matchExpressions":[{"key":"zone","operator":"NotIn","values":["b"]},
      {"key":"gpus","operator":"Gt","values":["100"]}]}]}}})");
  nowhere["spec"].AddMember("affinity", rapidjson::Value(none, nowhere.GetAllocator()),
                            nowhere.GetAllocator());
  view_.UpsertPod(nowhere);
  w = Build();
  d = sched::RunCycle(w.snapshot);
  bool waits = false;
  for (const sched::Pending& p : d.pending)
    if (w.snapshot.pods[p.pod].name == "ns/nowhere") {
      waits = true;
      EXPECT_NE(p.reason.find("affinity"), std::string::npos) << p.reason;
    }
  EXPECT_TRUE(waits);
}

}  // namespace
}  // namespace vtenant::scheduler

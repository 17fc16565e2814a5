// Binpack's choice of device for a GPU-sharing pod: devices whose sharers the
// portion complements, then an empty device on the fullest node, then any
// (with spread's and best fit's choices beside it).
#include "scheduler-core/placement.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "scheduler-core/node_extras.h"
#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

TEST(PlacementTest, ClassifyDevice) {
  struct Case {
    Milli used;
    Milli portion;
    DeviceFit fit;
  };
  const Case cases[] = {
      {0, 500, DeviceFit::kEmpty},         {500, 500, DeviceFit::kComplements},
      {330, 500, DeviceFit::kMixes},       {250, 500, DeviceFit::kMixes},
      {250, 250, DeviceFit::kComplements}, {500, 250, DeviceFit::kComplements},
      {750, 250, DeviceFit::kComplements}, {330, 250, DeviceFit::kMixes},
      {330, 330, DeviceFit::kComplements}, {660, 330, DeviceFit::kComplements},
      {500, 330, DeviceFit::kMixes},       {250, 330, DeviceFit::kMixes},
      {250, 123, DeviceFit::kComplements}, {330, 123, DeviceFit::kMixes},
      {900, 100, DeviceFit::kComplements}, {1, 999, DeviceFit::kComplements},
  };
  for (const Case& c : cases)
    EXPECT_EQ(ClassifyDevice(c.used, c.portion), c.fit) << c.used << "m used, " << c.portion << "m";
}

// Running fractions per device of one node, a new pod, the device it gets.
struct DeviceCase {
  std::string name;
  std::vector<std::vector<Milli>> running;  // per device of node "n"
  PodSpec pod;
  int device;
};

TEST(PlacementTest, BinpackPutsAPortionWhereLikeSizesFillTheDevice) {
  const DeviceCase cases[] = {
      {"an exact fill first", {{500}, {250}, {}}, FractionPod("new", "test", 500), 0},
      {"quarters join quarters, not the tighter pair of thirds",
       {{250, 250}, {330, 330}},
       FractionPod("new", "test", 250),
       0},
      {"a third joins a third, not the tighter half",
       {{500}, {330}},
       FractionPod("new", "test", 330),
       1},
      {"a half opens an empty device rather than leave 170m beside a third",
       {{330}, {}},
       FractionPod("new", "test", 500),
       1},
      // 9213 MiB of a 46068 MiB L40S is 200m.
      {"gpu-memory joins gpu-memory", {{200}, {330, 330}}, MemoryPod("new", "test", 9213), 0},
      {"with nothing complementing and nothing empty, the tightest that fits",
       {{500}, {330, 250}},
       FractionPod("new", "test", 330),
       1},
      {"the tightest shared device: 300m beside 700m fills it",
       {{300}, {700}, {}},
       FractionPod("new", "test", 300),
       1},
  };
  for (const DeviceCase& c : cases) {
    SnapshotBuilder b = OneQueue();
    b.AddNode(GpuNode("n", static_cast<int32_t>(c.running.size())));
    int id = 0;
    for (size_t d = 0; d < c.running.size(); ++d)
      for (Milli m : c.running[d])
        b.AddPod(Running(FractionPod("running-" + std::to_string(id++), "test", m), "n",
                         {static_cast<int>(d)}));
    b.AddPod(c.pod);
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    const Bind* bind = BindOf(d, s, "new");
    ASSERT_NE(bind, nullptr) << c.name;
    EXPECT_EQ(DeviceIndices(bind->allocation), std::vector<int>{c.device}) << c.name;
  }
}

// Nodes a and b of two GPUs each, pods running on them, a new pod: the node
// and device the policy gives it.
TEST(PlacementTest, OnTwoNodesEachPolicyPicksItsNodeAndDevice) {
  struct RunningPod {
    PodSpec pod;
    std::string node;
    int device;
  };
  struct Case {
    std::string name;
    PlacementPolicy policy;
    std::vector<RunningPod> running;
    PodSpec pod;
    std::string node;
    int device;
  };
  const std::vector<RunningPod> half_on_a_whole_on_b = {{FractionPod("half", "test", 500), "a", 0},
                                                        {WholeGpuPod("whole", "test", 1), "b", 0}};
  const std::vector<RunningPod> half_on_a1 = {{FractionPod("r", "test", 500), "a", 1}};
  const Case cases[] = {
      {"binpack joins a started device before opening one, though b has less free GPU",
       PlacementPolicy::kBinpack, half_on_a_whole_on_b, FractionPod("quarter", "test", 250), "a",
       0},
      {"best fit, the baseline, takes the node with the least free GPU", PlacementPolicy::kBestFit,
       half_on_a_whole_on_b, FractionPod("quarter", "test", 250), "b", 1},
      {"binpack opens the empty device of the fullest node rather than leave 170m beside a third",
       PlacementPolicy::kBinpack,
       {{FractionPod("third", "test", 330), "a", 0}},
       FractionPod("new", "test", 500),
       "a",
       1},
      {"binpack fills the shared device", PlacementPolicy::kBinpack, half_on_a1,
       FractionPod("new", "test", 250), "a", 1},
      {"spread takes the emptiest device", PlacementPolicy::kSpread, half_on_a1,
       FractionPod("new", "test", 250), "b", 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SnapshotBuilder b = OneQueue();
    b.AddNode(GpuNode("a", 2));
    b.AddNode(GpuNode("b", 2));
    for (const RunningPod& r : c.running) b.AddPod(Running(r.pod, r.node, {r.device}));
    b.AddPod(c.pod);
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s, {.policy = c.policy});
    const Bind* bind = BindOf(d, s, c.pod.name);
    ASSERT_NE(bind, nullptr);
    EXPECT_EQ(s.nodes[bind->allocation.node].name, c.node);
    EXPECT_EQ(DeviceIndices(bind->allocation), std::vector<int>{c.device});
  }
}

TEST(PlacementTest, LikeSizesTogetherLeaveRoomForEveryPod) {
  // Two GPUs, a third already on device 0; two halves then two thirds wait.
  // Halves beside the third would leave 170m on device 0 and 170m on
  // device 1, and the last third would find no room.
  SnapshotBuilder b = OneQueue();
  b.AddNode(GpuNode("n", 2));
  b.AddPod(Running(FractionPod("running-third", "test", 330), "n", {0}));
  int64_t created = 1;
  for (const auto& [name, milli] : {std::pair<std::string, Milli>{"half-1", 500},
                                    {"half-2", 500},
                                    {"third-1", 330},
                                    {"third-2", 330}}) {
    PodSpec p = FractionPod(name, "test", milli);
    p.creation_time = created++;
    b.AddPod(p);
  }
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_TRUE(d.pending.empty()) << d.pending.size() << " pending, first: "
                                 << (d.pending.empty() ? "" : d.ReasonOf(d.pending[0]));
  for (const char* pod : {"half-1", "half-2"}) {
    ASSERT_NE(BindOf(d, s, pod), nullptr) << pod;
    EXPECT_EQ(DeviceIndices(BindOf(d, s, pod)->allocation), std::vector<int>{1}) << pod;
  }
  for (const char* pod : {"third-1", "third-2"}) {
    ASSERT_NE(BindOf(d, s, pod), nullptr) << pod;
    EXPECT_EQ(DeviceIndices(BindOf(d, s, pod)->allocation), std::vector<int>{0}) << pod;
  }
}

constexpr PlacementPolicy kEveryPolicy[] = {PlacementPolicy::kBinpack, PlacementPolicy::kSpread,
                                            PlacementPolicy::kBestFit, PlacementPolicy::kRandomFit,
                                            PlacementPolicy::kFgd};

// Node n of `gpus` GPUs whose device 0 holds `leaving` and a whole-GPU pod
// nominated onto it while its victim is still there: over-full, in the
// scheduler's view.
SnapshotBuilder OverFullDevice(int32_t gpus, PodSpec leaving) {
  SnapshotBuilder b = OneQueue();
  b.AddNode(GpuNode("n", gpus));
  b.AddPod(Running(std::move(leaving), "n", {0}));
  b.AddPod(Running(WholeGpuPod("nominated", "test", 1), "n", {0}));
  return b;
}

// A node whose one GPU two pods hold (a pod nominated onto the GPU its
// victim still holds, in the scheduler's view) has no GPU room but its CPUs
// are free: a pod asking for CPU only is placed there under every policy,
// and a pod asking for a GPU is not.
TEST(PlacementTest, AnOverFullGpuNodeStillTakesAPodThatNeedsNoGpu) {
  for (PlacementPolicy policy : kEveryPolicy) {
    SnapshotBuilder b = OverFullDevice(1, WholeGpuPod("leaving", "test", 1));
    b.AddPod({.name = "cpu", .queue = "test", .cpu_milli = 1000});
    b.AddPod(WholeGpuPod("gpu", "test", 1));
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s, {.policy = policy});
    EXPECT_EQ(NodeOf(d, s, "cpu"), "n") << PolicyName(policy);
    EXPECT_EQ(NodeOf(d, s, "gpu"), "") << PolicyName(policy);
  }
}

// A device over-full by a whole GPU nominated onto its victim's fraction
// does not hide the node's idle device: a whole-GPU pod gets device 1.
TEST(PlacementTest, AnOverFullDeviceDoesNotHideItsNodesIdleDevice) {
  for (PlacementPolicy policy : kEveryPolicy) {
    SnapshotBuilder b = OverFullDevice(2, FractionPod("leaving", "test", 500));
    b.AddPod(WholeGpuPod("gpu", "test", 1));
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s, {.policy = policy});
    const Bind* bind = BindOf(d, s, "gpu");
    ASSERT_NE(bind, nullptr) << PolicyName(policy);
    EXPECT_EQ(DeviceIndices(bind->allocation), std::vector<int>{1}) << PolicyName(policy);
  }
}

// A shared device in use has a reservation pod on its node, which takes a
// pod slot (as KAI counts it): a sharing pod that starts a device needs two
// slots, one that joins a shared device one.
TEST(PlacementTest, AReservationPodTakesAPodSlotOfItsNode) {
  for (PlacementPolicy policy : kEveryPolicy) {
    SnapshotBuilder b = OneQueue();
    NodeSpec node = GpuNode("n", 2);
    node.max_pods = 3;
    b.AddNode(node);
    b.AddPod(Running(FractionPod("sharer", "test", 500), "n", {0}));  // two slots
    b.AddPod(FractionPod("joins", "test", 500));  // device 0's other half: one slot
    b.AddPod({.name = "cpu", .queue = "test", .cpu_milli = 100, .creation_time = 1});
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s, {.policy = policy});
    EXPECT_EQ(NodeOf(d, s, "joins"), "n") << PolicyName(policy);
    EXPECT_EQ(NodeOf(d, s, "cpu"), "") << PolicyName(policy);
    EXPECT_NE(ReasonOf(d, s, "cpu").find("1 max pods reached"), std::string::npos)
        << ReasonOf(d, s, "cpu");
  }
  // One slot left: a pod that would start sharing the idle device waits.
  SnapshotBuilder b = OneQueue();
  NodeSpec node = GpuNode("n", 1);
  node.max_pods = 2;
  b.AddNode(node);
  b.AddPod(Running({.name = "cpu", .queue = "test", .cpu_milli = 100}, "n", {}));
  b.AddPod(FractionPod("starts", "test", 500));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(NodeOf(d, s, "starts"), "");
  EXPECT_NE(ReasonOf(d, s, "starts").find("max pods reached"), std::string::npos)
      << ReasonOf(d, s, "starts");
}

// Replicas held apart (a required pod anti-affinity on the node's
// hostname): each policy puts them on distinct nodes, one running already
// counts, and the one too many waits saying why.
TEST(PlacementTest, ReplicasKeptApartTakeOneNodeEach) {
  for (PlacementPolicy policy :
       {PlacementPolicy::kBinpack, PlacementPolicy::kSpread, PlacementPolicy::kFgd,
        PlacementPolicy::kBestFit, PlacementPolicy::kRandomFit}) {
    SCOPED_TRACE(PolicyName(policy));
    SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {});
    for (const char* n : {"n1", "n2", "n3"})
      b.AddNode(GpuNode(n, 4, kL40sMib, {{"kubernetes.io/hostname", n}}));
    auto replica = [](std::string name) {
      PodSpec p = WholeGpuPod(std::move(name), "team", 1);
      p.marks = {"web"};
      p.anti_affinity = {{"web", "kubernetes.io/hostname"}};
      return p;
    };
    b.AddPod(Running(replica("web-0"), "n2", {0}));
    for (const char* name : {"web-1", "web-2", "web-3"}) b.AddPod(replica(name));
    b.AddPod(WholeGpuPod("other", "team", 1));  // not held apart from anyone
    Snapshot s = MustBuild(b);
    Options options;
    options.policy = policy;
    Decisions d = RunCycle(s, options);
    std::set<std::string> nodes = {"n2"};
    int placed = 0;
    for (const char* name : {"web-1", "web-2", "web-3"}) {
      const std::string node = NodeOf(d, s, name);
      if (node.empty()) {
        EXPECT_NE(ReasonOf(d, s, name).find("pod anti-affinity"), std::string::npos)
            << ReasonOf(d, s, name);
        continue;
      }
      ++placed;
      EXPECT_TRUE(nodes.insert(node).second) << name << " shares " << node;
    }
    EXPECT_EQ(placed, 2);
    EXPECT_NE(NodeOf(d, s, "other"), "");
  }
}

// Three nodes in two zones, each node named by its hostname label.
SnapshotBuilder ZonedCluster() {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {});
  for (auto [node, zone] : {std::pair{"n1", "a"}, {"n2", "a"}, {"n3", "b"}})
    b.AddNode(GpuNode(node, 4, kL40sMib,
                      {{"kubernetes.io/hostname", node}, {"topology.kubernetes.io/zone", zone}}));
  return b;
}

PodSpec Marked(PodSpec p, std::vector<std::string> marks) {
  p.marks = std::move(marks);
  return p;
}

// The node pod `name` of `b`'s cluster goes to in one cycle under `policy`
// ("" when none).
std::string NodeUnder(PlacementPolicy policy, const SnapshotBuilder& b, const std::string& name) {
  Snapshot s = MustBuild(b);
  Options options;
  options.policy = policy;
  Decisions d = RunCycle(s, options);
  return NodeOf(d, s, name);
}

// Required pod affinity toward another workload: a cache goes where the web
// server runs, in its zone or on its node; a pod whose partner runs nowhere
// waits, saying so.
TEST(PlacementTest, PodsGoWhereThePodsTheirAffinityNamesRun) {
  for (PlacementPolicy policy : {PlacementPolicy::kBinpack, PlacementPolicy::kSpread,
                                 PlacementPolicy::kFgd, PlacementPolicy::kBestFit}) {
    SCOPED_TRACE(PolicyName(policy));
    SnapshotBuilder b = ZonedCluster();
    b.AddPod(Running(Marked(WholeGpuPod("web", "team", 1), {"app=web"}), "n3", {0}));
    PodSpec same_node = WholeGpuPod("cache", "team", 1);
    same_node.affinity = {{"app=web", "kubernetes.io/hostname"}};
    PodSpec same_zone = WholeGpuPod("sidecar", "team", 1);
    same_zone.affinity = {{"app=web", "topology.kubernetes.io/zone"}};
    PodSpec lonely = WholeGpuPod("lonely", "team", 1);
    lonely.affinity = {{"app=db", "kubernetes.io/hostname"}};
    for (PodSpec p : {same_node, same_zone, lonely}) b.AddPod(std::move(p));
    Snapshot s = MustBuild(b);
    Options options;
    options.policy = policy;
    Decisions d = RunCycle(s, options);
    EXPECT_EQ(NodeOf(d, s, "cache"), "n3");
    EXPECT_EQ(NodeOf(d, s, "sidecar"), "n3");
    EXPECT_EQ(NodeOf(d, s, "lonely"), "");
    EXPECT_NE(ReasonOf(d, s, "lonely").find("3 pod affinity does not match"), std::string::npos)
        << ReasonOf(d, s, "lonely");
  }
}

// A group whose pods want to be together (affinity toward their own kind):
// the first may start anywhere, the rest follow it into its zone.
TEST(PlacementTest, TheFirstOfAGroupThatWantsToBeTogetherLeadsTheOthers) {
  for (PlacementPolicy policy : {PlacementPolicy::kBinpack, PlacementPolicy::kSpread}) {
    SCOPED_TRACE(PolicyName(policy));
    SnapshotBuilder b = ZonedCluster();
    for (const char* name : {"w-0", "w-1", "w-2", "w-3"}) {
      PodSpec p = Marked(WholeGpuPod(name, "team", 1), {"job=w"});
      p.affinity = {{"job=w", "topology.kubernetes.io/zone"}};
      b.AddPod(std::move(p));
    }
    Snapshot s = MustBuild(b);
    Options options;
    options.policy = policy;
    Decisions d = RunCycle(s, options);
    std::set<std::string> zones;
    for (const char* name : {"w-0", "w-1", "w-2", "w-3"}) {
      const std::string node = NodeOf(d, s, name);
      ASSERT_NE(node, "") << name << ": " << ReasonOf(d, s, name);
      zones.insert(node == "n3" ? "b" : "a");
    }
    EXPECT_EQ(zones.size(), 1u);
  }
}

// Pods that must be together (the scheduler's sets of pods sharing a
// claim no bind has allocated): a pod of a set one of which runs goes to
// its node, beside its own affinity, or waits saying why; the first of a
// set none of which is placed goes where its own terms let it.
TEST(PlacementTest, PodsThatMustBeTogetherFollowTheFirstOfTheirSet) {
  SnapshotBuilder b = ZonedCluster();
  b.AddPod(Running(Marked(WholeGpuPod("web", "team", 1), {"app=web"}), "n3", {0}));
  b.AddPod(Running(Marked(WholeGpuPod("g-first", "team", 1), {"claim=g"}), "n1", {0}));
  PodSpec follower = Marked(WholeGpuPod("follower", "team", 1), {"claim=g"});
  follower.together = {{"claim=g", "kubernetes.io/hostname"}};
  PodSpec joiner = Marked(WholeGpuPod("joiner", "team", 1), {"claim=g"});
  joiner.affinity = {{"app=web", "topology.kubernetes.io/zone"}};
  joiner.together = {{"claim=g", "kubernetes.io/hostname"}};
  PodSpec starter = Marked(WholeGpuPod("starter", "team", 1), {"claim=h"});
  starter.affinity = {{"app=web", "topology.kubernetes.io/zone"}};
  starter.together = {{"claim=h", "kubernetes.io/hostname"}};
  for (PodSpec p : {follower, joiner, starter}) b.AddPod(std::move(p));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(NodeOf(d, s, "follower"), "n1") << ReasonOf(d, s, "follower");
  EXPECT_EQ(NodeOf(d, s, "joiner"), "") << "its set is on n1, the web server's zone is b";
  EXPECT_NE(ReasonOf(d, s, "joiner").find("not on the node of the pods that share its resource"),
            std::string::npos)
      << ReasonOf(d, s, "joiner");
  EXPECT_EQ(NodeOf(d, s, "starter"), "n3") << ReasonOf(d, s, "starter");
}

// Anti-affinity toward another workload holds both ways: a batch job keeps
// off the database's node, and web pods, which carry no term of their own,
// keep off the node whose running database holds one against them.
TEST(PlacementTest, AntiAffinityTowardAnotherWorkloadHoldsBothWays) {
  SnapshotBuilder b = ZonedCluster();
  PodSpec db = Marked(WholeGpuPod("db", "team", 1), {"app=db"});
  db.anti_affinity = {{"app=web", "topology.kubernetes.io/zone"}};
  b.AddPod(Running(std::move(db), "n1", {0}));
  PodSpec batch = WholeGpuPod("batch", "team", 1);
  batch.anti_affinity = {{"app=db", "kubernetes.io/hostname"}};
  b.AddPod(batch);
  for (const char* name : {"web-0", "web-1"})
    b.AddPod(Marked(WholeGpuPod(name, "team", 1), {"app=web"}));
  Snapshot s = MustBuild(b);
  Options options;
  options.policy = PlacementPolicy::kBinpack;  // would pack onto n1 if it could
  Decisions d = RunCycle(s, options);
  EXPECT_NE(NodeOf(d, s, "batch"), "n1");
  EXPECT_NE(NodeOf(d, s, "batch"), "");
  EXPECT_EQ(NodeOf(d, s, "web-0"), "n3");
  EXPECT_EQ(NodeOf(d, s, "web-1"), "n3");

  // With zone b held by a pod that may not be moved, the web pods wait,
  // and say whose rule keeps them out.
  SnapshotBuilder full = ZonedCluster();
  PodSpec db2 = Marked(WholeGpuPod("db", "team", 1), {"app=db"});
  db2.anti_affinity = {{"app=web", "topology.kubernetes.io/zone"}};
  full.AddPod(Running(std::move(db2), "n1", {0}));
  PodSpec filler = WholeGpuPod("filler", "team", 4);
  filler.priority = 125;  // inference: not preemptible, not moved
  full.AddPod(Running(std::move(filler), "n3", {0, 1, 2, 3}));
  full.AddPod(Marked(WholeGpuPod("web-0", "team", 1), {"app=web"}));
  Snapshot fs = MustBuild(full);
  Decisions fd = RunCycle(fs, options);
  EXPECT_EQ(NodeOf(fd, fs, "web-0"), "");
  EXPECT_NE(ReasonOf(fd, fs, "web-0").find("2 existing pods' anti-affinity does not match"),
            std::string::npos)
      << ReasonOf(fd, fs, "web-0");
}

// Preferred terms rank the nodes above the policy, as KAI weighs them: a
// pod drawn to the web server goes to its node though spread would pick an
// emptier one, one pushed away leaves it though binpack would fill it, and
// a preference that cannot be had gives way.
TEST(PlacementTest, PreferredTermsRankNodesAboveThePolicy) {
  auto run = [](PlacementPolicy policy, PodSpec pod, int web_gpus) {
    SnapshotBuilder b = ZonedCluster();
    b.AddPod(Running(Marked(WholeGpuPod("web", "team", web_gpus), {"app=web"}), "n3",
                     web_gpus == 4 ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0}));
    b.AddPod(std::move(pod));
    return NodeUnder(policy, b, "new");
  };
  PodSpec drawn = WholeGpuPod("new", "team", 1);
  drawn.preferred = {{"app=web", "kubernetes.io/hostname", 10}};
  PodSpec pushed = WholeGpuPod("new", "team", 1);
  pushed.preferred = {{"app=web", "topology.kubernetes.io/zone", -10}};
  EXPECT_EQ(run(PlacementPolicy::kSpread, drawn, 1), "n3");
  EXPECT_EQ(run(PlacementPolicy::kFgd, drawn, 1), "n3");
  EXPECT_NE(run(PlacementPolicy::kBinpack, pushed, 1), "n3");
  EXPECT_NE(run(PlacementPolicy::kBinpack, pushed, 1), "");
  // Binpack alone picks the web server's node, and spread alone another.
  EXPECT_EQ(run(PlacementPolicy::kBinpack, WholeGpuPod("new", "team", 1), 1), "n3");
  EXPECT_NE(run(PlacementPolicy::kSpread, WholeGpuPod("new", "team", 1), 1), "n3");
  // Its node full, the pod drawn to it goes elsewhere.
  EXPECT_NE(run(PlacementPolicy::kSpread, drawn, 4), "n3");
  EXPECT_NE(run(PlacementPolicy::kSpread, drawn, 4), "");
}

// The other way round, as kube-scheduler scores: a placed pod's preferred
// terms draw or push the pods they name, which carry no term of their own,
// and its required affinity draws them with weight 1.
TEST(PlacementTest, PlacedPodsTermsRankNodesForThePodsTheyName) {
  auto run = [](PlacementPolicy policy, PodSpec web) {
    SnapshotBuilder b = ZonedCluster();
    b.AddPod(Running(std::move(web), "n3", {0}));
    b.AddPod(Marked(WholeGpuPod("cache", "team", 1), {"app=cache"}));
    return NodeUnder(policy, b, "cache");
  };
  PodSpec drawing = WholeGpuPod("web", "team", 1);
  drawing.preferred = {{"app=cache", "kubernetes.io/hostname", 10}};
  PodSpec pushing = WholeGpuPod("web", "team", 1);
  pushing.preferred = {{"app=cache", "topology.kubernetes.io/zone", -10}};
  PodSpec requiring = WholeGpuPod("web", "team", 1);
  requiring.affinity = {{"app=cache", "kubernetes.io/hostname"}};
  // Spread alone would pick an emptier node, binpack the web server's.
  EXPECT_NE(run(PlacementPolicy::kSpread, WholeGpuPod("web", "team", 1)), "n3");
  EXPECT_EQ(run(PlacementPolicy::kSpread, drawing), "n3");
  EXPECT_EQ(run(PlacementPolicy::kSpread, requiring), "n3");
  EXPECT_NE(run(PlacementPolicy::kBinpack, pushing), "n3");
  EXPECT_NE(run(PlacementPolicy::kBinpack, pushing), "");
}

// Required topology spread (whenUnsatisfiable DoNotSchedule): replicas
// spread evenly over zones and nodes though binpack would pack them, and
// minDomains beyond the nodes there are holds each node to maxSkew pods.
TEST(PlacementTest, TopologySpreadKeepsDomainsLevel) {
  auto run = [](const std::string& level, int replicas, int32_t min_domains) {
    SnapshotBuilder b = ZonedCluster();
    b.AddNode(GpuNode("unlabelled", 4, kL40sMib));  // in no domain: refused
    for (int i = 0; i < replicas; ++i) {
      PodSpec p = Marked(WholeGpuPod("r-" + std::to_string(i), "team", 1), {"app=web"});
      p.spread = {{.key = "app=web", .level = level, .max_skew = 1, .min_domains = min_domains}};
      b.AddPod(std::move(p));
    }
    Snapshot s = MustBuild(b);
    Options options;
    options.policy = PlacementPolicy::kBinpack;
    Decisions d = RunCycle(s, options);
    std::map<std::string, int> per_node;
    std::string reason;
    for (int i = 0; i < replicas; ++i) {
      const std::string name = "r-" + std::to_string(i);
      const std::string node = NodeOf(d, s, name);
      if (node.empty())
        reason = ReasonOf(d, s, name);
      else
        ++per_node[node];
    }
    return std::pair{per_node, reason};
  };
  auto [zones, none] = run("topology.kubernetes.io/zone", 4, 1);
  EXPECT_EQ(zones["n1"] + zones["n2"], 2);
  EXPECT_EQ(zones["n3"], 2);
  EXPECT_EQ(zones["unlabelled"], 0);
  EXPECT_EQ(none, "");
  auto [nodes, none_either] = run("kubernetes.io/hostname", 6, 1);
  EXPECT_EQ(nodes, (std::map<std::string, int>{{"n1", 2}, {"n2", 2}, {"n3", 2}}));
  auto [few, why] = run("kubernetes.io/hostname", 5, 4);
  EXPECT_EQ(few, (std::map<std::string, int>{{"n1", 1}, {"n2", 1}, {"n3", 1}}));
  EXPECT_NE(why.find("0/4 nodes fit: 4 topology spread constraints do not match"),
            std::string::npos)
      << why;
}

// Other resources (an RDMA device here) and host ports are counted per
// node: pods go only where they are left, and the one too many waits
// saying which.
TEST(PlacementTest, OtherResourcesAndHostPortsAreCountedPerNode) {
  SnapshotBuilder b = ZonedCluster();
  {
    // n1 has two RDMA devices, n3 one, n2 none.
    SnapshotBuilder rdma = Cluster({{"team", kUnlimited}}, {});
    NodeSpec n1 = GpuNode("n1", 4, kL40sMib), n2 = GpuNode("n2", 4, kL40sMib),
             n3 = GpuNode("n3", 4, kL40sMib);
    n1.other_resources = {{"rdma/ib", 2000}};
    n3.other_resources = {{"rdma/ib", 1000}, {"hugepages-2Mi", 0}};
    for (NodeSpec* n : {&n1, &n2, &n3}) rdma.AddNode(*n);
    for (const char* name : {"ib-0", "ib-1", "ib-2", "ib-3"}) {
      PodSpec p = WholeGpuPod(name, "team", 1);
      p.other_resources = {{"rdma/ib", 1000}};
      rdma.AddPod(std::move(p));
    }
    Snapshot s = MustBuild(rdma);
    Decisions d = RunCycle(s);
    std::map<std::string, int> per_node;
    std::string why;
    for (const char* name : {"ib-0", "ib-1", "ib-2", "ib-3"}) {
      const std::string node = NodeOf(d, s, name);
      if (node.empty())
        why = ReasonOf(d, s, name);
      else
        ++per_node[node];
    }
    EXPECT_EQ(per_node, (std::map<std::string, int>{{"n1", 2}, {"n3", 1}}));
    EXPECT_NE(why.find("3 insufficient other resources"), std::string::npos) << why;
  }
  {
    // A node's attachable volumes are a resource like another, said apart.
    SnapshotBuilder disks = Cluster({{"team", kUnlimited}}, {});
    NodeSpec n1 = GpuNode("n1", 4, kL40sMib);
    n1.other_resources = {{"attachable-volumes-csi-ebs.csi.aws.com", 1000}};
    disks.AddNode(n1);
    for (const char* name : {"disk-0", "disk-1"}) {
      PodSpec p = WholeGpuPod(name, "team", 1);
      p.other_resources = {{"attachable-volumes-csi-ebs.csi.aws.com", 1000}};
      disks.AddPod(std::move(p));
    }
    Snapshot s = MustBuild(disks);
    Decisions d = RunCycle(s);
    const std::string waiting = NodeOf(d, s, "disk-0").empty() ? "disk-0" : "disk-1";
    EXPECT_TRUE(NodeOf(d, s, waiting).empty());
    const std::string why = ReasonOf(d, s, waiting);
    EXPECT_NE(why.find("1 exceed max volume count"), std::string::npos) << why;
  }
  {
    // A node's free devices of a class likewise, in DynamicResources' words.
    SnapshotBuilder devices = Cluster({{"team", kUnlimited}}, {});
    NodeSpec n1 = GpuNode("n1", 4, kL40sMib);
    n1.other_resources = {{std::string(kDeviceClassPrefix) + "gpu.example.com", 1000}};
    devices.AddNode(n1);
    for (const char* name : {"claim-0", "claim-1"}) {
      PodSpec p = WholeGpuPod(name, "team", 0);
      p.other_resources = {{std::string(kDeviceClassPrefix) + "gpu.example.com", 1000}};
      devices.AddPod(std::move(p));
    }
    Snapshot s = MustBuild(devices);
    Decisions d = RunCycle(s);
    const std::string waiting = NodeOf(d, s, "claim-0").empty() ? "claim-0" : "claim-1";
    EXPECT_TRUE(NodeOf(d, s, waiting).empty());
    const std::string why = ReasonOf(d, s, waiting);
    EXPECT_NE(why.find("1 cannot allocate all claims"), std::string::npos) << why;
  }
  // A host port: one pod a node, a running one included.
  PodSpec running = WholeGpuPod("exporter-0", "team", 0);
  running.host_ports = {"TCP/9400"};
  b.AddPod(Running(running, "n2", {}));
  for (const char* name : {"exporter-1", "exporter-2", "exporter-3"}) {
    PodSpec p = WholeGpuPod(name, "team", 0);
    p.host_ports = {"TCP/9400"};
    b.AddPod(std::move(p));
  }
  PodSpec udp = WholeGpuPod("udp", "team", 0);
  udp.host_ports = {"UDP/9400"};  // another protocol: no clash
  b.AddPod(udp);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  std::set<std::string> nodes = {"n2"};
  std::string why;
  for (const char* name : {"exporter-1", "exporter-2", "exporter-3"}) {
    const std::string node = NodeOf(d, s, name);
    if (node.empty())
      why = ReasonOf(d, s, name);
    else
      EXPECT_TRUE(nodes.insert(node).second) << name << " shares " << node;
  }
  EXPECT_EQ(nodes.size(), 3u);
  EXPECT_NE(why.find("3 host ports in use"), std::string::npos) << why;
  EXPECT_NE(NodeOf(d, s, "udp"), "");
}

}  // namespace
}  // namespace vtenant::sched

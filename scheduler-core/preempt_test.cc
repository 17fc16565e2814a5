// Preempt: inside one queue, only lower-priority preemptible jobs past their
// preempt min runtime make room for a higher-priority one.
#include <gtest/gtest.h>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

constexpr int64_t kNow = 5000;

// The job every test makes room for: priority 100 in queue team.
PodSpec UrgentPod() {
  PodSpec urgent = WholeGpuPod("urgent", "team", 1);
  urgent.priority = 100;
  return urgent;
}

struct PreemptCase {
  std::string name;
  std::string victim_queue;
  int victim_priority;
  bool victim_preemptible;
  int64_t victim_start;
  std::optional<int64_t> preempt_min_runtime;
  bool evicted;
};

TEST(PreemptTest, Rules) {
  const PreemptCase cases[] = {
      {"lower priority in the same queue goes", "team", 10, true, 0, std::nullopt, true},
      {"equal priority stays", "team", 100, true, 0, std::nullopt, false},
      {"higher priority stays", "team", 200, true, 0, std::nullopt, false},
      {"non-preemptible stays", "team", 10, false, 0, std::nullopt, false},
      {"another queue is reclaim's business, not preempt's", "other", 10, true, 0, std::nullopt,
       false},
      {"within preempt min runtime stays", "team", 10, true, kNow - 30, 60, false},
      {"past preempt min runtime goes", "team", 10, true, kNow - 90, 60, true},
  };
  for (const PreemptCase& c : cases) {
    SnapshotBuilder b;
    b.SetNow(kNow);
    QueueSpec team = GpuQueue("team", "", kUnlimited);
    team.preempt_min_runtime_s = c.preempt_min_runtime;
    b.AddQueue(team);
    b.AddQueue(GpuQueue("other", "", kUnlimited));
    b.AddNode(GpuNode("n", 1));
    PodSpec victim = Running(WholeGpuPod("victim", c.victim_queue, 1), "n", {0}, c.victim_start);
    victim.priority = c.victim_priority;
    victim.preemptible = c.victim_preemptible;
    b.AddPod(victim);
    b.AddPod(UrgentPod());
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s, {.reclaim = false});  // isolate preempt
    const Eviction* e = EvictionOf(d, s, "victim");
    EXPECT_EQ(e != nullptr, c.evicted) << c.name;
    EXPECT_EQ(BindOf(d, s, "urgent") != nullptr, c.evicted) << c.name;
    if (e) {
      EXPECT_EQ(e->cause, EvictionCause::kPreempt) << c.name;
      EXPECT_EQ(d.MessageOf(*e),
                "preempted in queue team by job urgent of higher priority (100 > 10)");
    }
  }
}

TEST(PreemptTest, LowestPriorityThenYoungestGoesFirst) {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {{"n", 3}}, kNow);
  struct Victim {
    const char* name;
    int priority;
    int64_t start;
  };
  for (const Victim& v :
       {Victim{"mid", 50, 10}, Victim{"low-old", 10, 10}, Victim{"low-young", 10, 20}}) {
    static int device = 0;
    PodSpec p = Running(WholeGpuPod(v.name, "team", 1), "n", {device++ % 3}, v.start);
    p.priority = v.priority;
    b.AddPod(p);
  }
  b.AddPod(UrgentPod());
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(s.pods[d.evictions[0].pod].name, "low-young");
}

TEST(PreemptTest, FreesTheQueueLimitForAHigherPriorityJob) {
  // The queue is at its limit; the cluster has room. Preempting the low
  // priority job is what lets the urgent one in.
  SnapshotBuilder b;
  b.SetNow(kNow);
  b.AddQueue(GpuQueue("team", "", 0, 1000));
  b.AddNode(GpuNode("n", 4));
  PodSpec low = Running(WholeGpuPod("low", "team", 1), "n", {0});
  low.priority = 1;
  b.AddPod(low);
  PodSpec urgent = UrgentPod();
  // Priority 100 alone would make it non-preemptible, which quota 0 forbids.
  urgent.preemptible = true;
  b.AddPod(urgent);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_NE(EvictionOf(d, s, "low"), nullptr);
  EXPECT_NE(BindOf(d, s, "urgent"), nullptr);
}

// KAI's "Preemption with Max Pods Limit": a node full of low-priority CPU
// pods by its pod count gives one up for a higher-priority pod of the queue;
// a fraction pod, which needs a slot for its reservation pod too, does not
// fit beside one free slot and says "max pods".
TEST(PreemptTest, APodSlotIsMadeOnANodeAtMaxPods) {
  auto cluster = [](int running) {
    SnapshotBuilder b;
    b.SetNow(kNow);
    b.AddQueue(GpuQueue("team", "", kUnlimited));
    NodeSpec n = GpuNode("n", 1);
    n.max_pods = 4;
    b.AddNode(n);
    for (int i = 0; i < running; ++i) {
      PodSpec filler = Running(WholeGpuPod("filler-" + std::to_string(i), "team", 0), "n", {}, 10);
      filler.cpu_milli = 10;
      filler.priority = 10;
      b.AddPod(filler);
    }
    return b;
  };
  SnapshotBuilder full = cluster(4);
  PodSpec urgent = WholeGpuPod("urgent", "team", 0);
  urgent.cpu_milli = 10;
  urgent.priority = 11;
  full.AddPod(urgent);
  Snapshot s = MustBuild(full);
  Decisions d = RunCycle(s, {.reclaim = false});
  EXPECT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(NodeOf(d, s, "urgent"), "n");

  SnapshotBuilder one_free = cluster(3);
  PodSpec fraction = FractionPod("fraction", "team", 500);
  fraction.priority = 10;  // as low as the fillers: it may preempt none
  one_free.AddPod(fraction);
  Snapshot fs = MustBuild(one_free);
  Decisions fd = RunCycle(fs, {.reclaim = false});
  EXPECT_EQ(NodeOf(fd, fs, "fraction"), "");
  EXPECT_NE(ReasonOf(fd, fs, "fraction").find("max pods"), std::string::npos)
      << ReasonOf(fd, fs, "fraction");
}

}  // namespace
}  // namespace vtenant::sched

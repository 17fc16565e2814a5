// Reclaim: only from queues above their fair share (or quota), only
// preemptible victims past their minimum runtime, in a defined order, and
// no more of them than the reclaiming job needs.
#include <gtest/gtest.h>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

constexpr int64_t kNow = 10000;

// Queues a and b with equal quotas share `nodes` x `gpus`; b runs one
// 1-GPU job per device, started at `start + i` (so higher i is younger).
SnapshotBuilder BusyB(int nodes, int gpus, Milli quota_each, int64_t start = 0,
                      std::optional<int64_t> b_reclaim_min_runtime = std::nullopt) {
  SnapshotBuilder b = Cluster({{"a", quota_each}}, {}, kNow);
  QueueSpec qb = GpuQueue("b", "", quota_each);
  qb.reclaim_min_runtime_s = b_reclaim_min_runtime;
  b.AddQueue(qb);
  int i = 0;
  for (int n = 0; n < nodes; ++n) {
    std::string node = "node-" + std::to_string(n);
    b.AddNode(GpuNode(node, gpus));
    for (int d = 0; d < gpus; ++d, ++i)
      b.AddPod(Running(WholeGpuPod("b-" + std::to_string(i), "b", 1), node, {d}, start + i));
  }
  return b;
}

int CountEvictions(const Decisions& d, EvictionCause cause) {
  int n = 0;
  for (const Eviction& e : d.evictions) n += e.cause == cause;
  return n;
}

TEST(ReclaimTest, BelowFairShareTakesTheYoungestJobOfTheQueueAbove) {
  SnapshotBuilder b = BusyB(1, 4, 2000);
  b.AddPod(WholeGpuPod("a-job", "a", 1));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(s.pods[d.evictions[0].pod].name, "b-3");
  EXPECT_EQ(d.evictions[0].cause, EvictionCause::kReclaim);
  EXPECT_EQ(d.MessageOf(d.evictions[0]),
            "reclaimed for job a-job of queue a: queue b was above its fair share");
  EXPECT_NE(BindOf(d, s, "a-job"), nullptr);
  EXPECT_EQ(ReportOf(d, s, "a").allocated[kGpu], 1000);
  EXPECT_EQ(ReportOf(d, s, "b").allocated[kGpu], 3000);
}

TEST(ReclaimTest, LowerPriorityVictimsGoFirst) {
  SnapshotBuilder b = Cluster({{"a", 1000}, {"b", 1000}}, {{"n", 2}}, kNow);
  PodSpec important = Running(WholeGpuPod("b-important", "b", 1), "n", {0}, 50);
  important.priority = 100;
  b.AddPod(important);
  b.AddPod(Running(WholeGpuPod("b-routine", "b", 1), "n", {1}, 0));  // older but lower priority
  b.AddPod(WholeGpuPod("a-job", "a", 1));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(s.pods[d.evictions[0].pod].name, "b-routine");
}

struct RefusalCase {
  std::string name;
  std::function<void(SnapshotBuilder&)> setup;
  std::string reason_part;
};

// One row per rule that forbids a reclaim, each row's world checked alike
// below (a table like snapshot_builder_test's, for another verdict).
TEST(ReclaimTest, RefusesWhatTheRulesForbid) {
  const RefusalCase cases[] = {
      {"victims within their reclaim min runtime",
       [](SnapshotBuilder& b) {
         b = BusyB(1, 4, 2000, kNow - 100, 600);
         b.AddPod(WholeGpuPod("a-job", "a", 1));
       },
       "0/1 nodes fit"},
      {"reclaim min runtime -1: never",
       [](SnapshotBuilder& b) {
         b = BusyB(1, 4, 2000, 0, -1);
         b.AddPod(WholeGpuPod("a-job", "a", 1));
       },
       "0/1 nodes fit"},
      {"non-preemptible victims",
       [](SnapshotBuilder& b) {
         b = Cluster({{"a", 2000}, {"b", 2000}}, {{"n", 4}}, kNow);
         for (int i = 0; i < 4; ++i) {
           PodSpec p = Running(WholeGpuPod("b-" + std::to_string(i), "b", 1), "n", {i});
           p.preemptible = false;
           b.AddPod(p);
         }
         b.AddPod(WholeGpuPod("a-job", "a", 1));
       },
       "0/1 nodes fit"},
      {"victim queue within its fair share",
       [](SnapshotBuilder& b) {
         // b holds exactly its share (2 of 4), a wants more than its 2.
         b = Cluster({{"a", 2000}, {"b", 2000}}, {{"n", 4}}, kNow);
         for (int i = 0; i < 2; ++i) {
           b.AddPod(Running(WholeGpuPod("a-" + std::to_string(i), "a", 1), "n", {i}));
           b.AddPod(Running(WholeGpuPod("b-" + std::to_string(i), "b", 1), "n", {i + 2}));
         }
         b.AddPod(WholeGpuPod("a-job", "a", 1));
       },
       "no reclaim: queue a is not below its fair share (gpu 2000m allocated of 2000m)"},
  };
  for (const RefusalCase& c : cases) {
    SnapshotBuilder b;
    c.setup(b);
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    EXPECT_TRUE(d.evictions.empty()) << c.name;
    EXPECT_EQ(BindOf(d, s, "a-job"), nullptr) << c.name;
    EXPECT_NE(ReasonOf(d, s, "a-job").find(c.reason_part), std::string::npos)
        << c.name << ": " << ReasonOf(d, s, "a-job");
  }
}

TEST(ReclaimTest, EvictsOnlyVictimsOnTheNodeTheJobTakes) {
  // Two nodes of two GPUs, all b's. a needs both GPUs of one node: the
  // youngest-first order hits both nodes before one is empty; only the two
  // victims on the node a lands on may go.
  SnapshotBuilder b = Cluster({{"a", 2000}, {"b", 2000}}, {{"n0", 2}, {"n1", 2}}, kNow);
  b.AddPod(Running(WholeGpuPod("b-n0-old", "b", 1), "n0", {0}, 1));
  b.AddPod(Running(WholeGpuPod("b-n1-old", "b", 1), "n1", {0}, 2));
  b.AddPod(Running(WholeGpuPod("b-n0-young", "b", 1), "n0", {1}, 3));
  b.AddPod(Running(WholeGpuPod("b-n1-young", "b", 1), "n1", {1}, 4));
  b.AddPod(WholeGpuPod("a-job", "a", 2));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_NE(BindOf(d, s, "a-job"), nullptr);
  ASSERT_EQ(d.evictions.size(), 2u);
  NodeId target = BindOf(d, s, "a-job")->allocation.node;
  for (const Eviction& e : d.evictions)
    EXPECT_EQ(s.pods[e.pod].allocation.node, target) << s.pods[e.pod].name;
}

TEST(ReclaimTest, GangReclaimsAllItNeedsOrNothing) {
  // a's gang of 3 one-GPU pods against b running on every GPU of one node,
  // both queues with quota `quota_each`.
  auto gang_against_busy_b = [](int gpus, Milli quota_each) {
    SnapshotBuilder b = BusyB(1, gpus, quota_each);
    b.AddGroup({.name = "gang", .queue = "a", .min_member = 3});
    for (int i = 0; i < 3; ++i) {
      PodSpec p = WholeGpuPod("gang-" + std::to_string(i), "", 1);
      p.group = "gang";
      b.AddPod(p);
    }
    return RunCycle(MustBuild(b));
  };

  // The gang needs 3 of b's 4 GPUs, but a's fair share is 2: taking 3 would
  // put a above its share, so nothing is evicted.
  Decisions d = gang_against_busy_b(4, 2000);
  EXPECT_TRUE(d.evictions.empty());
  EXPECT_TRUE(d.binds.empty());

  // With 6 GPUs and quotas of 3 each, the same gang reclaims exactly three,
  // which brings b down to its share and no further.
  Decisions d3 = gang_against_busy_b(6, 3000);
  EXPECT_EQ(CountEvictions(d3, EvictionCause::kReclaim), 3);
  EXPECT_EQ(d3.binds.size(), 3u);
}

TEST(ReclaimTest, FairnessIsComparedBetweenSiblingsOfTheCommonParent) {
  // org-x and org-y split 4 GPUs 2/2. Inside org-y, y1 uses everything org-y
  // gets plus org-x's idle share. x1 (under org-x) reclaims from org-y's
  // side, which is above its share, even though y1's own numbers alone do
  // not say so.
  SnapshotBuilder b = Cluster({{"org-x", 2000}, {"org-y", 2000}}, {}, kNow);
  b.AddQueue(GpuQueue("x1", "org-x", 2000));
  b.AddQueue(GpuQueue("y1", "org-y", 2000));
  b.AddQueue(GpuQueue("y2", "org-y", 0));
  b.AddNode(GpuNode("n", 4));
  for (int i = 0; i < 4; ++i)
    b.AddPod(Running(WholeGpuPod("y-" + std::to_string(i), i < 2 ? "y1" : "y2", 1), "n", {i}, i));
  b.AddPod(WholeGpuPod("x-job", "x1", 1));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_NE(BindOf(d, s, "x-job"), nullptr);
}

// GPUs the reclaiming job may not use are no one's share: with them left
// out of capacity (KAI's --restrict-node-scheduling, on a node not marked
// for GPU work) b's share shrinks to what the usable node leaves it.
TEST(ReclaimTest, GpusOutOfCapacityAreNoQueuesShare) {
  for (bool counted : {true, false}) {
    SCOPED_TRACE(counted ? "counted" : "out of capacity");
    SnapshotBuilder b = BusyB(1, 4, 0);
    NodeSpec elsewhere = GpuNode("cpu-worker", 4);
    elsewhere.gpus_in_capacity = counted;
    elsewhere.taints = {{"dedicated", "cpu", TaintEffect::kNoSchedule}};
    b.AddNode(elsewhere);
    b.AddPod(WholeGpuPod("a-job", "a", 1));
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    EXPECT_EQ(ReportOf(d, s, "a").fair_share[kGpu] + ReportOf(d, s, "b").fair_share[kGpu],
              counted ? 5000 : 4000);
    if (counted) {
      EXPECT_TRUE(d.evictions.empty());
    } else {
      ASSERT_EQ(d.evictions.size(), 1u);
      EXPECT_EQ(s.pods[d.evictions[0].pod].name, "b-3");
    }
  }
}

}  // namespace
}  // namespace vtenant::sched

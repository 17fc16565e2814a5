// Consolidation moves running pods only when every moved pod is placed
// again and a pending job then fits, and only a few of them: each move is a
// restart for someone.
#include <gtest/gtest.h>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

struct ConsolidateCase {
  std::string name;
  Milli on_a;  // fraction running on node a's only GPU
  Milli on_b;  // and on node b's
  bool movable;
  PlacementPolicy policy;
  size_t moves;
};

TEST(ConsolidateTest, Rules) {
  const ConsolidateCase cases[] = {
      {"two halves on two GPUs make room for a whole GPU", 500, 500, true,
       PlacementPolicy::kBinpack, 1},
      {"nothing moves when the moved pod would find no home", 600, 600, true,
       PlacementPolicy::kBinpack, 0},
      {"non-preemptible pods are not moved", 500, 500, false, PlacementPolicy::kBinpack, 0},
      {"spread turns consolidation off", 500, 500, true, PlacementPolicy::kSpread, 0},
  };
  for (const ConsolidateCase& c : cases) {
    SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {{"a", 1}, {"b", 1}});
    PodSpec ra = Running(FractionPod("ra", "team", c.on_a), "a", {0});
    PodSpec rb = Running(FractionPod("rb", "team", c.on_b), "b", {0});
    ra.preemptible = rb.preemptible = c.movable;
    b.AddPod(ra).AddPod(rb);
    b.AddPod(WholeGpuPod("whole", "team", 1));
    Snapshot s = MustBuild(b);
    Options o;
    o.policy = c.policy;
    o.reclaim = o.preempt = false;
    Decisions d = RunCycle(s, o);
    EXPECT_EQ(d.moves.size(), c.moves) << c.name;
    EXPECT_TRUE(d.evictions.empty()) << c.name;
    EXPECT_EQ(BindOf(d, s, "whole") != nullptr, c.moves > 0) << c.name;
    for (const Move& m : d.moves) {
      EXPECT_NE(m.from.node, m.to.node) << c.name;
      EXPECT_NE(m.to.node, BindOf(d, s, "whole")->allocation.node) << c.name;
    }
  }
}

TEST(ConsolidateTest, DoesNotMoveForAJobThatFitsNowhereAnyway) {
  // 2 GPUs in total, 1 free in halves; the pending job wants 2: moving
  // cannot help, so nothing moves.
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {{"a", 1}, {"b", 1}});
  b.AddPod(Running(FractionPod("ra", "team", 500), "a", {0}));
  b.AddPod(Running(FractionPod("rb", "team", 500), "b", {0}));
  b.AddPod(WholeGpuPod("two", "team", 2));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_TRUE(d.moves.empty());
  EXPECT_EQ(BindOf(d, s, "two"), nullptr);
}

PodSpec Pinned(PodSpec p) {
  p.preemptible = false;
  return p;
}

// Node a holds three 300m pods; making room for a whole GPU there takes
// three moves (b has room for all three beside a pinned 100m pod).
Snapshot ThreeMovesNeeded() {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {{"a", 1}, {"b", 1}});
  b.AddPod(Running(FractionPod("r1", "team", 300), "a", {0}));
  b.AddPod(Running(FractionPod("r2", "team", 300), "a", {0}));
  b.AddPod(Running(FractionPod("r3", "team", 300), "a", {0}));
  b.AddPod(Running(Pinned(FractionPod("pin", "team", 100)), "b", {0}));
  b.AddPod(WholeGpuPod("whole", "team", 1));
  return MustBuild(b);
}

TEST(ConsolidateTest, JobNeedingMoreMovesThanTheCapStaysPending) {
  Snapshot s = ThreeMovesNeeded();
  Options o;
  o.reclaim = o.preempt = false;
  o.consolidation_max_moves_per_job = 2;
  Decisions d = RunCycle(s, o);
  EXPECT_TRUE(d.moves.empty());
  EXPECT_EQ(BindOf(d, s, "whole"), nullptr);
  EXPECT_NE(ReasonOf(d, s, "whole").find("no plan of at most 2 pod moves"), std::string::npos)
      << ReasonOf(d, s, "whole");

  // The same job with a cap of three is placed: the cap, not the cluster,
  // kept it pending.
  o.consolidation_max_moves_per_job = 3;
  d = RunCycle(s, o);
  EXPECT_EQ(d.moves.size(), 3u);
  ASSERT_NE(BindOf(d, s, "whole"), nullptr);
  EXPECT_EQ(NodeOf(d, s, "whole"), "a");
}

TEST(ConsolidateTest, ChoosesThePlanWithTheFewestMoves) {
  // a has the most free GPU (500m) but needs two 250m pods moved; b has
  // 400m free and needs one 600m pod moved. c (600m free beside a pinned
  // pod) can take either. One move wins over being closest to fitting.
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {{"a", 1}, {"b", 1}, {"c", 1}});
  b.AddPod(Running(FractionPod("q1", "team", 250), "a", {0}));
  b.AddPod(Running(FractionPod("q2", "team", 250), "a", {0}));
  b.AddPod(Running(FractionPod("big", "team", 600), "b", {0}));
  b.AddPod(Running(Pinned(FractionPod("pin", "team", 400)), "c", {0}));
  b.AddPod(WholeGpuPod("whole", "team", 1));
  Snapshot s = MustBuild(b);
  Options o;
  o.reclaim = o.preempt = false;
  Decisions d = RunCycle(s, o);
  ASSERT_EQ(d.moves.size(), 1u);
  EXPECT_EQ(d.moves[0].pod, PodNamed(s, "big"));
  ASSERT_NE(BindOf(d, s, "whole"), nullptr);
  EXPECT_EQ(NodeOf(d, s, "whole"), "b");
}

TEST(ConsolidateTest, HonoursTheMovesBudgetOfACycle) {
  // Six one-GPU nodes, each half used: three whole-GPU jobs could each be
  // placed with one move, but the cycle may move only two pods.
  SnapshotBuilder b = Cluster({{"team", kUnlimited}},
                              {{"n0", 1}, {"n1", 1}, {"n2", 1}, {"n3", 1}, {"n4", 1}, {"n5", 1}});
  for (int i = 0; i < 6; ++i)
    b.AddPod(
        Running(FractionPod("h" + std::to_string(i), "team", 500), "n" + std::to_string(i), {0}));
  for (int i = 0; i < 3; ++i) b.AddPod(WholeGpuPod("w" + std::to_string(i), "team", 1));
  Snapshot s = MustBuild(b);
  Options o;
  o.reclaim = o.preempt = false;
  o.consolidation_max_moves_per_cycle = 2;
  Decisions d = RunCycle(s, o);
  EXPECT_EQ(d.moves.size(), 2u);
  int bound = 0;
  std::string waiting;
  for (int i = 0; i < 3; ++i) {
    const std::string name = "w" + std::to_string(i);
    if (BindOf(d, s, name) != nullptr)
      ++bound;
    else
      waiting = name;
  }
  EXPECT_EQ(bound, 2);
  ASSERT_FALSE(waiting.empty());
  EXPECT_NE(ReasonOf(d, s, waiting).find("budget of 2 pod moves is spent"), std::string::npos)
      << ReasonOf(d, s, waiting);

  // With the default budget all three are placed, one move each.
  d = RunCycle(s, Options{.reclaim = false, .preempt = false});
  EXPECT_EQ(d.moves.size(), 3u);
}

}  // namespace
}  // namespace vtenant::sched

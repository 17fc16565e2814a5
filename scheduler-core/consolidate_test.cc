// Consolidation moves running pods only when every moved pod is placed
// again and a pending job then fits.
#include <gtest/gtest.h>

#include "scheduler-core/test_support.h"

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

}  // namespace
}  // namespace vtenant::sched

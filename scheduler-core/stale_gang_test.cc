// Stale gangs: a gang running below minMember longer than the grace period
// is evicted so its GPUs stop idling.
#include <gtest/gtest.h>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

constexpr int64_t kNow = 1000;

struct StaleCase {
  std::string name;
  int64_t stale_since;
  int free_gpus;  // room for the missing members this cycle
  bool evicted;
  std::optional<int64_t> grace = std::nullopt;  // the group's own; unset: 60 s
};

TEST(StaleGangTest, Rules) {
  const StaleCase cases[] = {
      {"below minMember past the grace", kNow - 120, 0, true},
      {"below minMember within the grace", kNow - 30, 0, false},
      {"not stale", -1, 0, false},
      {"missing members fit this cycle", kNow - 120, 2, false},
      {"past the default grace, within its own", kNow - 120, 0, false, 300},
      {"within the default grace, past its own", kNow - 30, 0, true, 10},
      {"a negative grace is never past", kNow - 100000, 0, false, -1},
  };
  for (const StaleCase& c : cases) {
    SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {}, kNow);
    // Two GPUs for the running members, plus room for the missing ones or not.
    b.AddNode(GpuNode("n", 2 + c.free_gpus));
    b.AddGroup({.name = "ring",
                .queue = "team",
                .min_member = 4,
                .stale_since = c.stale_since,
                .stale_grace_s = c.grace});
    for (int i = 0; i < 4; ++i) {
      PodSpec p = WholeGpuPod("ring-" + std::to_string(i), "", 1);
      p.group = "ring";
      if (i < 2) p = Running(p, "n", {i});
      b.AddPod(p);
    }
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    int stale_evictions = 0;
    for (const Eviction& e : d.evictions) stale_evictions += e.cause == EvictionCause::kStaleGang;
    EXPECT_EQ(stale_evictions, c.evicted ? 2 : 0) << c.name;
    if (c.evicted) {
      ASSERT_NE(EvictionOf(d, s, "ring-0"), nullptr) << c.name;
      EXPECT_EQ(
          d.MessageOf(*EvictionOf(d, s, "ring-0")),
          "gang ring ran below minMember 4 for " + std::to_string(kNow - c.stale_since) + "s");
    }
  }
}

}  // namespace
}  // namespace vtenant::sched

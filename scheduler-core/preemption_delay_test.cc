// Preemption delay (KAI's spec.preemptionDelay): a job within it takes only
// free room; it evicts nobody, by reclaim, preemption or consolidation,
// until the delay, counted from its creation or its last eviction, whichever
// is later, has passed.
#include <gtest/gtest.h>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

// 2026-12-05T22:00:00Z.
constexpr int64_t kNow = 1796508000;

struct DelayCase {
  std::string name;
  int64_t created;
  int64_t last_eviction;  // 0: never
  bool reclaims;
};

TEST(PreemptionDelayTest, AJobMayEvictOnlyOnceItsDelayHasPassed) {
  const DelayCase cases[] = {
      {"created within the delay", kNow - 30, 0, false},
      {"created before the delay", kNow - 90, 0, true},
      {"evicted within the delay", kNow - 3600, kNow - 10, false},
      {"evicted before the delay", kNow - 3600, kNow - 61, true},
  };
  for (const DelayCase& c : cases) {
    // Queue b holds the whole node above its fair share; a's job has a
    // fair share of room it could reclaim.
    SnapshotBuilder b = Cluster({{"a", 2000}, {"b", 2000}}, {{"n", 4}}, kNow);
    for (int d = 0; d < 4; ++d)
      b.AddPod(Running(WholeGpuPod("b-" + std::to_string(d), "b", 1), "n", {d}, d));
    b.AddGroup({.name = "train",
                .queue = "a",
                .creation_time = c.created,
                .preemption_delay_s = 60,
                .last_eviction_time = c.last_eviction});
    PodSpec p = WholeGpuPod("train-0", "a", 1);
    p.group = "train";
    b.AddPod(p);
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    EXPECT_EQ(d.evictions.size(), c.reclaims ? 1u : 0u) << c.name;
    if (!c.reclaims) {
      const int64_t end = std::max(c.created, c.last_eviction) + 60;
      EXPECT_NE(ReasonOf(d, s, "train-0")
                    .find("the job is within its preemption delay and may not evict "
                          "others before " +
                          std::string(end == kNow + 30 ? "2026-12-05T22:00:30Z"
                                                       : "2026-12-05T22:00:50Z")),
                std::string::npos)
          << c.name << ": " << ReasonOf(d, s, "train-0");
    }
  }
}

TEST(PreemptionDelayTest, FreeRoomIsTakenAtOnce) {
  SnapshotBuilder b = Cluster({{"a", 2000}}, {{"n", 1}}, kNow);
  b.AddGroup({.name = "train", .queue = "a", .creation_time = kNow, .preemption_delay_s = 600});
  PodSpec p = WholeGpuPod("train-0", "a", 1);
  p.group = "train";
  b.AddPod(p);
  Snapshot s = MustBuild(b);
  EXPECT_NE(BindOf(RunCycle(s), s, "train-0"), nullptr);
}

}  // namespace
}  // namespace vtenant::sched

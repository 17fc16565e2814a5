// VictimRanks: who is ranked (preemptible jobs with a running pod), in
// which order (the session's VictimOrder), and that a pool keeping only
// some of them keeps them in the order sorting those alone would give.
#include "scheduler-core/victim_ranks.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "scheduler-core/testing/test_support.h"
#include "scheduler-core/victims.h"

namespace vtenant::sched {
namespace {

using namespace testing;

constexpr int64_t kNow = 10000;

// Queue "a" runs eight one-GPU jobs of mixed priority, creation and start
// time (two of them created at the same moment), one of them not
// preemptible; "b" runs one; "a" also has a pending job and a gang with
// one pod running and one pending.
Snapshot Busy() {
  SnapshotBuilder b;
  b.SetNow(kNow);
  b.AddQueue(GpuQueue("a", "", kUnlimited));
  b.AddQueue(GpuQueue("b", "", kUnlimited));
  b.AddNode(GpuNode("n1", 8));
  b.AddNode(GpuNode("n2", 8));
  struct Job {
    const char* name;
    int32_t priority;
    int64_t creation;
    int64_t start;
  };
  const Job jobs[] = {{"p10-old", 10, 100, 9000},    {"p10-new", 10, 500, 9500},
                      {"p5", 5, 300, 9990},          {"p20", 20, 200, 100},
                      {"p10-twin-1", 10, 400, 8000}, {"p10-twin-2", 10, 400, 8000},
                      {"p5-young", 5, 900, 9999}};
  int device = 0;
  for (const Job& j : jobs) {
    PodSpec p = Running(WholeGpuPod(j.name, "a", 1), "n1", {device++}, j.start);
    p.priority = j.priority;
    p.preemptible = true;
    p.creation_time = j.creation;
    b.AddPod(p);
  }
  PodSpec fixed = Running(WholeGpuPod("fixed", "a", 1), "n1", {device++}, 0);
  fixed.priority = 10;
  fixed.preemptible = false;
  b.AddPod(fixed);
  PodSpec other = Running(WholeGpuPod("other", "b", 1), "n2", {0}, 0);
  other.preemptible = true;
  b.AddPod(other);
  b.AddPod(WholeGpuPod("waiting", "a", 1));
  b.AddGroup({.name = "gang", .queue = "a", .min_member = 1, .priority = 15, .preemptible = true});
  for (int i = 0; i < 2; ++i) {
    PodSpec p = WholeGpuPod("gang-" + std::to_string(i), "a", 1);
    p.group = "gang";
    if (i == 0) p = Running(p, "n2", {1}, 0);
    b.AddPod(p);
  }
  return MustBuild(b);
}

GroupId GroupOf(const Snapshot& s, const std::string& pod) {
  return s.pods[PodNamed(s, pod)].group;
}

TEST(VictimRanksTest, RanksPreemptibleRunningJobsInTheVictimOrder) {
  const Snapshot s = Busy();
  Session session(s, Options{});
  const VictimRanks ranks(session);

  std::vector<GroupId> running;
  for (const char* pod : {"p10-old", "p10-new", "p5", "p20", "p10-twin-1", "p10-twin-2", "p5-young",
                          "fixed", "other", "gang-0"})
    running.push_back(GroupOf(s, pod));
  std::sort(running.begin(), running.end());
  EXPECT_EQ(ranks.Running(), running) << "pending jobs are left out, non-preemptible ones not";

  std::vector<GroupId> expected;
  for (const char* pod :
       {"p10-old", "p10-new", "p5", "p20", "p10-twin-1", "p10-twin-2", "p5-young", "gang-0"})
    expected.push_back(GroupOf(s, pod));
  const VictimOrder& order = *session.rules.victim_order;
  std::sort(expected.begin(), expected.end(),
            [&](GroupId x, GroupId y) { return order.JobFirst(session, x, y); });
  EXPECT_EQ(ranks.InQueue(QueueNamed(s, "a")), expected);
  // Lowest priority first, the newest first among equals.
  EXPECT_EQ(expected.front(), GroupOf(s, "p5-young"));
  EXPECT_EQ(expected.back(), GroupOf(s, "p20"));
  EXPECT_EQ(ranks.InQueue(QueueNamed(s, "b")), std::vector<GroupId>{GroupOf(s, "other")});
}

TEST(VictimRanksTest, IsWorkedOutOncePerSession) {
  const Snapshot s = Busy();
  Session session(s, Options{});
  const VictimRanks* first = &VictimRanksOf(session);
  EXPECT_EQ(&VictimRanksOf(session), first);
}

TEST(VictimRanksTest, PoolKeepsItsJobsInTheOrderSortingThemAloneGives) {
  const Snapshot s = Busy();
  Session session(s, Options{});
  // A minimum runtime that only some jobs are past, in queue a.
  std::vector<int64_t> min_runtime(s.queues.size(), 0);
  const QueueId a = QueueNamed(s, "a");
  min_runtime[a] = 600;
  const VictimPool pool(session, VictimRanksOf(session), min_runtime);

  std::vector<GroupId> kept;
  for (const char* pod :
       {"p10-old", "p10-new", "p20", "p10-twin-1", "p10-twin-2", "p5-young", "p5", "gang-0"}) {
    const GroupId g = GroupOf(s, pod);
    if (kNow - session.group_start[g] >= min_runtime[a]) kept.push_back(g);
  }
  ASSERT_LT(kept.size(), VictimRanksOf(session).InQueue(a).size())
      << "the case must leave some out";
  const VictimOrder& order = *session.rules.victim_order;
  std::sort(kept.begin(), kept.end(),
            [&](GroupId x, GroupId y) { return order.JobFirst(session, x, y); });
  EXPECT_EQ(pool.InQueue(a), kept);
  EXPECT_EQ(pool.WithinMinRuntime(a), 3);
  EXPECT_EQ(pool.NonPreemptible(a), 1);
}

}  // namespace
}  // namespace vtenant::sched

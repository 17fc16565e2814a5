// KAI Scheduler's rules that users see, one table each: preemptibility and
// quota, the queue order chain, the default reclaim strategy and victim
// order, victims chosen per device, and pending reasons that name the rule.
#include <gtest/gtest.h>

#include "scheduler-core/cluster_state.h"
#include "scheduler-core/node_extras.h"
#include "scheduler-core/session.h"
#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

constexpr int64_t kNow = 10000;

int Binds(const Decisions& d) { return static_cast<int>(d.binds.size()); }

TEST(KaiRulesTest, PreemptibilityFollowsPriorityWhenUnset) {
  struct Case {
    int priority;
    std::optional<bool> preemptible;
    bool expected;
  };
  const Case cases[] = {
      {0, std::nullopt, true},    {50, std::nullopt, true},   {99, std::nullopt, true},
      {100, std::nullopt, false}, {125, std::nullopt, false}, {125, true, true},
      {50, false, false},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b = OneQueue();
    PodSpec solo = FractionPod("solo", "test", 500);
    solo.priority = c.priority;
    solo.preemptible = c.preemptible;
    b.AddPod(solo);
    b.AddGroup(
        {.name = "gang", .queue = "test", .priority = c.priority, .preemptible = c.preemptible});
    b.AddPod({.name = "member", .group = "gang", .gpu_fraction = 500});
    Snapshot s = MustBuild(b);
    EXPECT_EQ(s.groups[s.pods[PodNamed(s, "solo")].group].preemptible, c.expected)
        << "pod, priority " << c.priority;
    EXPECT_EQ(s.groups[s.pods[PodNamed(s, "member")].group].preemptible, c.expected)
        << "group, priority " << c.priority;
  }
}

TEST(KaiRulesTest, NonPreemptibleWorkStaysWithinQuotaAtEveryLevel) {
  struct Case {
    std::string name;
    Milli parent_quota;
    Milli team_quota;
    int priority;
    std::optional<bool> preemptible;
    int jobs;  // one GPU each, on a 4-GPU node with nothing else running
    int bound;
    std::string reason_part;  // of the last job, when it stays pending
  };
  const Case cases[] = {
      {"priority 100 unmarked is non-preemptible: quota 1, three GPUs stay idle", kUnlimited, 1000,
       100, std::nullopt, 2, 1,
       "non-preemptible job would exceed queue team's gpu quota: 1000m held by non-preemptible "
       "jobs + 1000m requested > 1000m quota"},
      {"priority 50 unmarked is preemptible and bursts into idle GPUs", kUnlimited, 1000, 50,
       std::nullopt, 3, 3, ""},
      {"priority 125 marked preemptible bursts", kUnlimited, 1000, 125, true, 3, 3, ""},
      {"priority 50 marked non-preemptible stays within quota", kUnlimited, 2000, 50, false, 3, 2,
       "non-preemptible job would exceed queue team's gpu quota"},
      {"quota 0 never runs non-preemptible GPU work", kUnlimited, 0, 100, std::nullopt, 1, 0,
       "non-preemptible job would exceed queue team's gpu quota: 0m held by non-preemptible "
       "jobs + 1000m requested > 0m quota"},
      {"the department's quota holds too", 1000, 4000, 100, std::nullopt, 2, 1,
       "non-preemptible job would exceed queue org's gpu quota"},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b;
    b.AddQueue(GpuQueue("org", "", c.parent_quota));
    b.AddQueue(GpuQueue("team", "org", c.team_quota));
    b.AddNode(GpuNode("n", 4));
    for (int i = 0; i < c.jobs; ++i) {
      PodSpec p = WholeGpuPod("job-" + std::to_string(i), "team", 1);
      p.priority = c.priority;
      p.preemptible = c.preemptible;
      p.creation_time = i;
      b.AddPod(p);
    }
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    EXPECT_EQ(Binds(d), c.bound) << c.name;
    if (!c.reason_part.empty()) {
      const std::string reason = ReasonOf(d, s, "job-" + std::to_string(c.jobs - 1));
      EXPECT_NE(reason.find(c.reason_part), std::string::npos) << c.name << ": " << reason;
    }
  }
}

TEST(KaiRulesTest, LimitsHoldAtEveryLevelAndQuotasOnlyForNonPreemptibleWork) {
  // org -> team, one 4-GPU node, three one-GPU jobs; what FitsQueueBudget
  // checks is decided once per queue path (QueuePathBudgets).
  struct Case {
    std::string name;
    Milli org_quota, org_limit, team_quota, team_limit;
    int priority;  // 100: non-preemptible
    uint8_t team_path;
    int bound;
    std::string reason_part;
  };
  const Case cases[] = {
      {"nothing set: nothing to check", kUnlimited, kUnlimited, kUnlimited, kUnlimited, 100, 0, 3,
       ""},
      {"the department's limit holds for preemptible work", kUnlimited, 1000, kUnlimited,
       kUnlimited, 0, kPathHasLimit, 1, "queue org would exceed its gpu limit"},
      {"the team's limit holds", kUnlimited, kUnlimited, kUnlimited, 2000, 0, kPathHasLimit, 2,
       "queue team would exceed its gpu limit"},
      {"a quota alone does not hold preemptible work", 1000, kUnlimited, kUnlimited, kUnlimited, 0,
       kPathHasQuota, 3, ""},
      {"the department's quota holds non-preemptible work", 1000, kUnlimited, kUnlimited,
       kUnlimited, 100, kPathHasQuota, 1, "non-preemptible job would exceed queue org's gpu quota"},
      {"both", 2000, 3000, kUnlimited, kUnlimited, 100, kPathHasLimit | kPathHasQuota, 2,
       "non-preemptible job would exceed queue org's gpu quota"},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b;
    b.AddQueue(GpuQueue("org", "", c.org_quota, c.org_limit));
    b.AddQueue(GpuQueue("team", "org", c.team_quota, c.team_limit));
    b.AddNode(GpuNode("n", 4));
    for (int i = 0; i < 3; ++i) {
      PodSpec p = WholeGpuPod("job-" + std::to_string(i), "team", 1);
      p.priority = c.priority;
      p.creation_time = i;
      b.AddPod(p);
    }
    Snapshot s = MustBuild(b);
    const std::vector<uint8_t> paths = QueuePathBudgets(s);
    EXPECT_EQ(paths[QueueNamed(s, "team")], c.team_path) << c.name;
    Decisions d = RunCycle(s);
    EXPECT_EQ(Binds(d), c.bound) << c.name;
    if (!c.reason_part.empty()) {
      const std::string reason = ReasonOf(d, s, "job-2");
      EXPECT_NE(reason.find(c.reason_part), std::string::npos) << c.name << ": " << reason;
    }
  }
}

// KAI counts the GPUs of dynamic resource claims (DRA) as GPUs: those the
// nodes' slices publish in the capacity, those a pod's claims take in its
// queue's allocation, so a queue's limit holds for them as for devices.
TEST(KaiRulesTest, ResourceClaimGpusCountAsTheQueuesGpus) {
  const std::string kClass = std::string(kDeviceClassPrefix) + "gpu.example.com";
  SnapshotBuilder b;
  b.AddQueue(GpuQueue("org", "", kUnlimited));
  b.AddQueue(GpuQueue("team", "org", kUnlimited, 2000));
  NodeSpec node = GpuNode("n", 0);
  node.claim_gpus = 4;
  node.other_resources[kClass] = 4000;
  b.AddNode(node);
  for (int i = 0; i < 3; ++i) {
    PodSpec p{.name = "job-" + std::to_string(i), .queue = "team", .claim_gpus = 1};
    p.other_resources[kClass] = 1000;
    p.creation_time = i;
    b.AddPod(p);
  }
  Snapshot s = MustBuild(b);
  EXPECT_EQ(ClusterState(s).Capacity()[kGpu], 4000);
  Decisions d = RunCycle(s);
  EXPECT_EQ(Binds(d), 2);
  const std::string reason = ReasonOf(d, s, "job-2");
  EXPECT_NE(reason.find("queue team would exceed its gpu limit"), std::string::npos) << reason;
  EXPECT_EQ(ReportOf(d, s, "team").allocated[kGpu], 2000);
  EXPECT_EQ(ReportOf(d, s, "team").requested[kGpu], 3000);

  // Running, such a pod is charged the same.
  SnapshotBuilder running = b;
  PodSpec held{.name = "held", .queue = "team", .claim_gpus = 2};
  held.other_resources[kClass] = 2000;
  running.AddPod(Running(held, "n", {}));
  Snapshot r = MustBuild(running);
  EXPECT_EQ(ClusterState(r).QueueAllocated(QueueNamed(r, "team"))[kGpu], 2000);
  EXPECT_EQ(Binds(RunCycle(r)), 0);
}

// Two queues, a and b, each with one pending one-GPU job and one GPU free:
// who gets it.
struct QueueSide {
  Milli quota = 0;
  int priority = 0;
  int running = 0;  // one-GPU pods already running
  int pending = 1;  // one-GPU jobs waiting
  int64_t created = 0;
  double weight = 1.0;
};

struct OrderCase {
  std::string name;
  QueueSide a, b;
  int free_gpus;
  std::string winner;
};

TEST(KaiRulesTest, QueueOrderFollowsKaisChain) {
  const OrderCase cases[] = {
      {"not above fair share beats above, whatever the priority: b holds 2 of its 1-GPU share",
       {.quota = 2000, .pending = 2},
       {.priority = 10, .running = 2},
       1,
       "a"},
      {"within quota with the job beats beyond it, whatever the priority",
       {.quota = 1000},
       {.priority = 10},
       1,
       "a"},
      {"then the higher queue priority", {}, {.priority = 10}, 1, "b"},
      {"then the smaller share with the job over max(quota, fair share): 2/4 before 3/4",
       {.quota = 4000, .running = 2},
       {.quota = 4000, .running = 1},
       1,
       "b"},
      {"then the queue created first",
       {.quota = 1000, .created = 20},
       {.quota = 1000, .created = 10},
       1,
       "b"},
  };
  for (const OrderCase& c : cases) {
    SnapshotBuilder b;
    b.SetNow(kNow);
    int gpus = c.free_gpus + c.a.running + c.b.running;
    b.AddNode(GpuNode("n", gpus));
    int device = 0;
    for (const auto& [name, side] : {std::pair{"a", c.a}, std::pair{"b", c.b}}) {
      QueueSpec q = GpuQueue(name, "", side.quota, kUnlimited, side.weight);
      q.priority = side.priority;
      q.creation_time = side.created;
      b.AddQueue(q);
      for (int i = 0; i < side.running; ++i)
        b.AddPod(Running(WholeGpuPod(std::string(name) + "-running-" + std::to_string(i), name, 1),
                         "n", {device++}));
      for (int i = 0; i < side.pending; ++i)
        b.AddPod(WholeGpuPod(std::string(name) + "-job-" + std::to_string(i), name, 1));
    }
    Snapshot s = MustBuild(b);
    Options o;
    o.reclaim = o.preempt = o.consolidate = false;  // allocation order only
    Decisions d = RunCycle(s, o);
    ASSERT_EQ(Binds(d), 1) << c.name;
    EXPECT_EQ(s.groups[s.pods[d.binds[0].pod].group].queue, QueueNamed(s, c.winner)) << c.name;
  }
}

TEST(KaiRulesTest, AboveFairShareIsEveryResourceByDefaultAnyResourceAsAnOption) {
  // Queue a (priority 10) holds two GPUs over its 1-GPU limit, so above its
  // GPU fair share, but not above its CPU share. KAI counts it as above only
  // when every resource is; the option counts any.
  SnapshotBuilder b;
  QueueSpec qa = GpuQueue("a", "", 0, 1000);
  qa.priority = 10;
  b.AddQueue(qa);
  b.AddQueue(GpuQueue("b", "", 0));
  b.AddNode(GpuNode("n", 4));
  for (int i = 0; i < 2; ++i) {
    PodSpec p = Running(WholeGpuPod("a-" + std::to_string(i), "a", 1), "n", {i});
    p.cpu_milli = 1000;
    b.AddPod(p);
  }
  b.AddPod(WholeGpuPod("b-job", "b", 1));
  Snapshot s = MustBuild(b);
  Session session(s, Options{});
  const QueueId a = QueueNamed(s, "a"), bq = QueueNamed(s, "b");
  const ResourceVector job = MakeResources(1000, 0, 0);
  ASSERT_GT(session.state.QueueAllocated(a)[kGpu], session.fair_share[a][kGpu]);
  ASSERT_LE(session.state.QueueAllocated(a)[kCpu], session.fair_share[a][kCpu]);
  const KaiQueueOrder kai, any(/*any_resource=*/true);
  EXPECT_TRUE(kai.Before(session, a, job, bq, job)) << "KAI: a is not above; priority decides";
  EXPECT_TRUE(any.Before(session, bq, job, a, job)) << "any resource: a is above, b goes first";
}

TEST(KaiRulesTest, QueueOrderJudgesDepartmentsFirst) {
  // Department d1 is within its quota with the job, d2 (higher priority)
  // is not; the leaves' own quotas do not decide between departments.
  SnapshotBuilder b;
  b.AddQueue(GpuQueue("d1", "", 1000));
  QueueSpec d2 = GpuQueue("d2", "", 0);
  d2.priority = 10;
  b.AddQueue(d2);
  b.AddQueue(GpuQueue("x", "d1", 0));
  b.AddQueue(GpuQueue("y", "d2", 1000));
  b.AddNode(GpuNode("n", 1));
  b.AddPod(WholeGpuPod("y-job", "y", 1));
  b.AddPod(WholeGpuPod("x-job", "x", 1));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s, {.reclaim = false, .preempt = false});
  EXPECT_NE(BindOf(d, s, "x-job"), nullptr);
  EXPECT_EQ(BindOf(d, s, "y-job"), nullptr);
}

TEST(KaiRulesTest, BelowQuotaReclaimsFromAboveQuotaEvenAtFairShare) {
  // Four nodes of two GPUs. b (quota 1) runs six GPUs, exactly its fair
  // share, spread so no node has two free; a (quota 2) wants two on one
  // node. KAI's second strategy: below quota takes from above quota.
  SnapshotBuilder b = Cluster({{"a", 2000}, {"b", 1000}}, {}, kNow);
  int i = 0;
  for (const auto& [node, devices] : std::vector<std::pair<std::string, std::vector<int>>>{
           {"n0", {0, 1}}, {"n1", {0, 1}}, {"n2", {0}}, {"n3", {0}}}) {
    b.AddNode(GpuNode(node, 2));
    for (int dev : devices)
      b.AddPod(Running(WholeGpuPod("b-" + std::to_string(i++), "b", 1), node, {dev}));
  }
  b.AddPod(WholeGpuPod("a-job", "a", 2));
  Snapshot s = MustBuild(b);
  Options o;
  o.consolidate = false;  // a move would also do; reclaim is the rule under test
  Decisions d = RunCycle(s, o);
  EXPECT_EQ(ReportOf(d, s, "b").fair_share[kGpu], 6000);
  ASSERT_NE(BindOf(d, s, "a-job"), nullptr) << ReasonOf(d, s, "a-job");
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(d.evictions[0].cause, EvictionCause::kReclaim);
}

TEST(KaiRulesTest, VictimOrder) {
  struct Victim {
    std::string name;
    std::string queue;
    int priority;
    int64_t created;
    int64_t started;
  };
  struct Case {
    std::string name;
    std::vector<Victim> victims;  // one GPU each, filling the node
    std::string evicted;
  };
  const Case cases[] = {
      {"the lower-priority queue first, even added later",
       {{"hi-0", "hi", 0, 0, 0}, {"lo-0", "lo", 0, 0, 0}},
       "lo-0"},
      {"within a queue the lowest job priority first",
       {{"keep", "lo", 5, 30, 0}, {"go", "lo", 0, 10, 0}},
       "go"},
      {"then the newest created, whatever the start times",
       {{"old", "lo", 0, 10, 100}, {"new", "lo", 0, 20, 50}},
       "new"},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b;
    b.SetNow(kNow);
    // a is below its quota of one GPU. hi and lo have no
    // share at all (quota 0, weight 0), so both are above it.
    b.AddQueue(GpuQueue("a", "", 1000, 1000));
    QueueSpec hi = GpuQueue("hi", "", 0, kUnlimited, 0);
    hi.priority = 10;
    b.AddQueue(hi);
    b.AddQueue(GpuQueue("lo", "", 0, kUnlimited, 0));
    b.AddNode(GpuNode("n", static_cast<int32_t>(c.victims.size())));
    int dev = 0;
    for (const Victim& v : c.victims) {
      PodSpec p = Running(WholeGpuPod(v.name, v.queue, 1), "n", {dev++}, v.started);
      p.priority = v.priority;
      p.creation_time = v.created;
      b.AddPod(p);
    }
    b.AddPod(WholeGpuPod("a-job", "a", 1));
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    ASSERT_EQ(d.evictions.size(), 1u) << c.name << ": " << ReasonOf(d, s, "a-job");
    EXPECT_EQ(s.pods[d.evictions[0].pod].name, c.evicted) << c.name;
  }
}

TEST(KaiRulesTest, VictimsAreChosenPerDevice) {
  struct Case {
    std::string name;
    PodSpec pending;
    std::vector<std::string> evicted;
  };
  const Case cases[] = {
      {"a whole GPU takes the whole-GPU job's device, not two fractions on another",
       WholeGpuPod("a-job", "a", 1),
       {"whole"}},
      {"a 0.4 fraction takes one 0.5 fraction's room, not the whole-GPU job",
       FractionPod("a-job", "a", 400),
       {"half-new"}},
  };
  for (const Case& c : cases) {
    // b is far above its share; its newest job is the whole-GPU one on n1,
    // so rank alone would pick it. n2's one device holds two halves.
    SnapshotBuilder b = Cluster({{"a", 2000}, {"b", 0}}, {{"n1", 1}, {"n2", 1}}, kNow);
    PodSpec whole = Running(WholeGpuPod("whole", "b", 1), "n1", {0});
    whole.creation_time = 30;
    PodSpec old_half = Running(FractionPod("half-old", "b", 500), "n2", {0});
    old_half.creation_time = 10;
    PodSpec new_half = Running(FractionPod("half-new", "b", 500), "n2", {0});
    new_half.creation_time = 20;
    for (const PodSpec& p : {whole, old_half, new_half}) b.AddPod(p);
    b.AddPod(c.pending);
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    ASSERT_NE(BindOf(d, s, "a-job"), nullptr) << c.name << ": " << ReasonOf(d, s, "a-job");
    std::vector<std::string> evicted;
    for (const Eviction& e : d.evictions) evicted.push_back(s.pods[e.pod].name);
    EXPECT_EQ(evicted, c.evicted) << c.name;
  }
}

TEST(KaiRulesTest, PendingReasonsNameTheRule) {
  struct Case {
    std::string name;
    std::function<void(SnapshotBuilder&)> setup;
    std::string reason_part;
  };
  auto busy_b = [](SnapshotBuilder& b, std::function<void(PodSpec&)> tweak) {
    for (int i = 0; i < 2; ++i) {
      PodSpec p = Running(WholeGpuPod("b-" + std::to_string(i), "b", 1), "n", {i}, kNow - 100);
      tweak(p);
      b.AddPod(p);
    }
  };
  const Case cases[] = {
      {"victims within their reclaim min runtime",
       [&](SnapshotBuilder& b) {
         QueueSpec q = GpuQueue("b", "", 0);
         q.reclaim_min_runtime_s = 600;
         b.AddQueue(q);
         busy_b(b, [](PodSpec&) {});
       },
       "no reclaim: the jobs that would make room (queue b) are within their minimum runtime "
       "of 600s"},
      // KAI's LastStartTimestamp: started long ago, placed again lately.
      {"victims the scheduler placed within their reclaim min runtime",
       [&](SnapshotBuilder& b) {
         QueueSpec q = GpuQueue("b", "", 0);
         q.reclaim_min_runtime_s = 600;
         b.AddQueue(q);
         for (int i = 0; i < 2; ++i) {
           GroupSpec g;
           g.name = "job-b-" + std::to_string(i);
           g.queue = "b";
           g.last_start_time = kNow - 100;
           b.AddGroup(g);
         }
         busy_b(b, [](PodSpec& p) {
           p.group = "job-" + p.name;
           p.start_time = kNow - 5000;
         });
       },
       "no reclaim: the jobs that would make room (queue b) are within their minimum runtime "
       "of 600s"},
      {"victims that are non-preemptible",
       [&](SnapshotBuilder& b) {
         b.AddQueue(GpuQueue("b", "", 0));
         busy_b(b, [](PodSpec& p) { p.preemptible = false; });
       },
       "no reclaim: the jobs that would make room (queue b) are non-preemptible"},
      {"the limit of a named queue",
       [&](SnapshotBuilder& b) {
         b.AddQueue(GpuQueue("b", "", 0));
         b.AddPod(WholeGpuPod("a-other", "a", 1));
       },
       "queue a would exceed its gpu limit: 1000m allocated + 1000m requested > 1000m limit"},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b;
    b.SetNow(kNow);
    b.AddQueue(GpuQueue("a", "", 1000, 1000));
    b.AddNode(GpuNode("n", 2));
    c.setup(b);
    PodSpec job = WholeGpuPod("a-job", "a", 1);
    job.creation_time = 5;  // after a-other
    b.AddPod(job);
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    const std::string reason = ReasonOf(d, s, "a-job");
    EXPECT_NE(reason.find(c.reason_part), std::string::npos) << c.name << ": " << reason;
  }
}

}  // namespace
}  // namespace vtenant::sched

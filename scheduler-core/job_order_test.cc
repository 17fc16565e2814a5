// Which job goes first, and the per-queue report, including the three-team
// L40S tutorial.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>

#include "scheduler-core/job_allocation.h"
#include "scheduler-core/queue_order.h"
#include "scheduler-core/session.h"
#include "scheduler-core/testing/test_support.h"
#include "scheduler-core/victims.h"

namespace vtenant::sched {
namespace {

using namespace testing;

TEST(JobOrderTest, InsideAQueueHigherPriorityThenOlderWins) {
  struct Job {
    const char* name;
    int priority;
    int64_t created;
  };
  struct Case {
    std::vector<Job> jobs;
    const char* winner;
  };
  const Case cases[] = {
      {{{"young-high", 10, 50}, {"old-low", 0, 1}}, "young-high"},
      {{{"young", 0, 50}, {"old", 0, 1}}, "old"},
  };
  for (const Case& c : cases) {
    SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {{"n", 1}});
    for (const Job& j : c.jobs) {
      PodSpec p = WholeGpuPod(j.name, "team", 1);
      p.priority = j.priority;
      p.creation_time = j.created;
      b.AddPod(p);
    }
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    ASSERT_EQ(d.binds.size(), 1u);
    EXPECT_EQ(s.pods[d.binds[0].pod].name, c.winner);
  }
}

TEST(JobOrderTest, QueueFurthestBelowItsFairShareGoesFirst) {
  // One free GPU, two queues with equal shares; "rich" already holds one.
  SnapshotBuilder b = Cluster({{"poor", 1000}, {"rich", 1000}}, {{"n", 2}});
  b.AddPod(Running(WholeGpuPod("rich-running", "rich", 1), "n", {0}));
  // rich's job is older than poor's: age alone would pick it.
  b.AddPod({.name = "rich-next", .queue = "rich", .whole_gpus = 1, .creation_time = 0});
  b.AddPod({.name = "poor-next", .queue = "poor", .whole_gpus = 1, .creation_time = 99});
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s, {.reclaim = false, .preempt = false});
  EXPECT_NE(BindOf(d, s, "poor-next"), nullptr);
  EXPECT_EQ(BindOf(d, s, "rich-next"), nullptr);
}

// The tutorial's ml-org: one L40S, three teams with 0.33 GPU each.
SnapshotBuilder MlOrg() {
  SnapshotBuilder b;
  b.AddQueue(GpuQueue("ml-org", "", 1000, 1000));
  for (const char* team : {"nlp", "vision", "recsys"})
    b.AddQueue(GpuQueue(team, "ml-org", 330, 1000));
  b.AddNode(GpuNode("l40s", 1));
  return b;
}

TEST(JobOrderTest, ThreeTeamsShareOneL40SAt330mEach) {
  SnapshotBuilder b = MlOrg();
  for (const char* team : {"nlp", "vision", "recsys"})
    b.AddPod(FractionPod(std::string(team) + "-pod", team, 330));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.binds.size(), 3u);
  for (const Bind& bind : d.binds) EXPECT_EQ(bind.allocation.device_mask, 1u);
  for (const char* team : {"nlp", "vision", "recsys"}) {
    const QueueReport& r = ReportOf(d, s, team);
    EXPECT_EQ(r.fair_share[kGpu], 330) << team;
    EXPECT_EQ(r.allocated[kGpu], 330) << team;
    EXPECT_EQ(r.requested[kGpu], 330) << team;
  }
  EXPECT_EQ(ReportOf(d, s, "ml-org").allocated[kGpu], 990);
}

TEST(JobOrderTest, AnIdleTeamLetsTheBusyOneUseTheWholeGpu) {
  SnapshotBuilder b = MlOrg();
  for (int i = 0; i < 3; ++i) b.AddPod(FractionPod("nlp-" + std::to_string(i), "nlp", 330));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(d.binds.size(), 3u);
  EXPECT_EQ(ReportOf(d, s, "nlp").fair_share[kGpu], 990);
  EXPECT_EQ(ReportOf(d, s, "nlp").allocated[kGpu], 990);
}

TEST(JobOrderTest, AReturningTeamReclaimsItsGuaranteedShare) {
  // nlp bursts to the whole GPU while the others idle; vision comes back
  // and gets its 0.33 by reclaim.
  SnapshotBuilder b = MlOrg();
  b.SetNow(100);
  for (int i = 0; i < 3; ++i)
    b.AddPod(Running(FractionPod("nlp-" + std::to_string(i), "nlp", 330), "l40s", {0}, i));
  b.AddPod(FractionPod("vision-pod", "vision", 330));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_NE(BindOf(d, s, "vision-pod"), nullptr) << ReasonOf(d, s, "vision-pod");
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(s.pods[d.evictions[0].pod].name, "nlp-2");  // the youngest
  EXPECT_EQ(ReportOf(d, s, "vision").fair_share[kGpu], 330);
}

// A queue order of its own, with its own key: the queue holding the least
// GPU first, ties to the lower id.
class LeastGpuFirst : public QueueOrder {
 public:
  struct Key {
    Milli gpu;
    QueueId queue;
  };
  QueueKey KeyOf(const Session& s, QueueId q, const ResourceVector&) const override {
    QueueKey key;
    key.As<Key>() = {s.state.QueueAllocated(q)[kGpu], q};
    return key;
  }
  bool KeyBefore(const QueueKey& a, const QueueKey& b) const override {
    const Key& ka = a.As<Key>();
    const Key& kb = b.As<Key>();
    return ka.gpu != kb.gpu ? ka.gpu < kb.gpu : ka.queue < kb.queue;
  }
};

TEST(JobOrderTest, AQueueOrderOfItsOwnSeesTheServedQueuesNewAllocation) {
  // Two GPUs, two one-GPU jobs in each queue. Served in turn only if a's key
  // is worked out again after a-0 is placed; a stale key (0 GPU) would hand
  // a-1 out next, by the lower id.
  SnapshotBuilder b = Cluster({{"a", kUnlimited}, {"b", kUnlimited}}, {{"n", 2}});
  for (const char* q : {"a", "b"})
    for (int i = 0; i < 2; ++i)
      b.AddPod(WholeGpuPod(std::string(q) + "-" + std::to_string(i), q, 1));
  Snapshot s = MustBuild(b);
  Options o;
  o.reclaim = o.preempt = o.consolidate = false;  // allocation order only
  o.rules.queue_order = std::make_shared<LeastGpuFirst>();
  Decisions d = RunCycle(s, o);
  EXPECT_NE(BindOf(d, s, "a-0"), nullptr);
  EXPECT_NE(BindOf(d, s, "b-0"), nullptr);
  EXPECT_EQ(BindOf(d, s, "a-1"), nullptr);
  EXPECT_EQ(BindOf(d, s, "b-1"), nullptr);
}

TEST(JobOrderTest, TheJobRanksSortIsItsComparison) {
  // Small ranges (many ties: names decide), and ages so far apart that
  // priority and age no longer fit one integer.
  const std::vector<int64_t> ages[] = {
      {0, 1, 2},
      {5, 1000000},
      {std::numeric_limits<int64_t>::min(), 0, std::numeric_limits<int64_t>::max()}};
  for (uint32_t seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(seed);
    const std::vector<int64_t>& age = ages[seed % 3];
    SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {});
    for (int i = 0; i < 300; ++i) {
      PodSpec p = FractionPod("job-" + std::to_string(rng() % 100000) + "-" + std::to_string(i),
                              "team", 500);
      p.priority =
          seed % 2 == 0 ? static_cast<int32_t>(rng() % 3) - 1 : static_cast<int32_t>(rng()) / 2;
      p.creation_time = age[rng() % age.size()];
      b.AddPod(p);
    }
    const Snapshot s = MustBuild(b);
    std::vector<GroupId> sorted(s.groups.size());
    std::iota(sorted.begin(), sorted.end(), 0);
    std::shuffle(sorted.begin(), sorted.end(), rng);
    std::vector<GroupId> expected = sorted;
    PriorityThenAgeJobRank rank;
    std::sort(expected.begin(), expected.end(),
              [&](GroupId x, GroupId y) { return rank.Before(s, x, y); });
    rank.Sort(s, &sorted);
    EXPECT_EQ(sorted, expected) << "seed " << seed;
  }
}

// KAI's queue order without its coarse order: JobOrder falls back to
// comparing every sibling in order, the reference for the tournament.
class KaiByScan : public QueueOrder {
 public:
  QueueKey KeyOf(const Session& s, QueueId q, const ResourceVector& job) const override {
    return kai_.KeyOf(s, q, job);
  }
  bool KeyBefore(const QueueKey& a, const QueueKey& b) const override {
    return kai_.KeyBefore(a, b);
  }

 private:
  KaiQueueOrder kai_;
};

// A random tree of 1 to 3 levels and up to 12 siblings, quotas and needs
// drawn from few values (so that keys tie and the chain reaches the fair
// shares, creation and names), on a cluster too small for everyone.
Snapshot RandomWorld(std::mt19937& rng) {
  SnapshotBuilder b;
  const Milli quotas[] = {0, 500, 1000, 2000, kUnlimited};
  std::vector<std::string> names, leaves;
  std::function<void(const std::string&, int)> grow = [&](const std::string& parent, int depth) {
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      const std::string name = (parent.empty() ? "q" : parent + "-") + std::to_string(rng() % 100);
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      names.push_back(name);
      QueueSpec q = GpuQueue(name, parent, quotas[rng() % 5], kUnlimited, 1 + rng() % 2);
      if (rng() % 3 == 0) q.resources[kCpu].quota = 1000 * static_cast<int64_t>(rng() % 3);
      q.priority = static_cast<int32_t>(rng() % 2);
      q.creation_time = rng() % 2;
      b.AddQueue(q);
      if (depth > 1 && rng() % 2 == 0)
        grow(name, depth - 1);
      else
        leaves.push_back(name);
    }
  };
  grow("", 1 + static_cast<int>(rng() % 3));
  b.AddNode(GpuNode("n0", 4));
  b.AddNode(GpuNode("n1", 2));
  const Milli fractions[] = {0, 250, 500};
  for (int i = 0; i < 80; ++i) {
    PodSpec p =
        FractionPod("p" + std::to_string(i), leaves[rng() % leaves.size()], fractions[rng() % 3]);
    if (rng() % 4 == 0) p = WholeGpuPod(p.name, p.queue, 1);
    p.cpu_milli = 1000 * static_cast<int64_t>(rng() % 2);
    p.priority = static_cast<int32_t>(rng() % 2);
    p.creation_time = rng() % 5;
    b.AddPod(p);
  }
  return MustBuild(b);
}

TEST(JobOrderTest, TheTournamentHandsOutWhatTheScanDoes) {
  for (uint32_t seed = 0; seed < 200; ++seed) {
    std::mt19937 rng(seed);
    const Snapshot s = RandomWorld(rng);
    Options scan;
    scan.rules.queue_order = std::make_shared<KaiByScan>();
    Session with_tournament(s, Options{}), with_scan(s, scan);
    std::vector<GroupId> jobs(s.groups.size());
    std::iota(jobs.begin(), jobs.end(), 0);
    JobOrder fast(with_tournament, jobs), slow(with_scan, jobs);
    for (size_t n = 0;; ++n) {
      const GroupId g = fast.Next();
      ASSERT_EQ(g, slow.Next()) << "seed " << seed << ", job " << n;
      if (g == kNone) break;
      EXPECT_EQ(AllocateJob(with_tournament, g, Attempt::kCommitted),
                AllocateJob(with_scan, g, Attempt::kCommitted));
    }
  }
}

// JobOrder's picks worked out from scratch for every job: every queue's
// key computed anew, every level scanned in order keeping its first best.
class FreshPicks {
 public:
  FreshPicks(const Session& s, std::vector<GroupId> jobs)
      : s_(s), cursor_(s.snapshot.queues.size()) {
    jobs_.resize(s.snapshot.queues.size());
    for (GroupId g : jobs) {
      need_[g] = GangNeed(s, g);
      jobs_[s.job_facts[g].queue].push_back(g);
    }
    for (std::vector<GroupId>& q : jobs_) s.rules.job_rank->Sort(s.snapshot, &q);
    for (QueueId q = 0; q < s.snapshot.queues.size(); ++q)
      if (s.snapshot.queues[q].parent == kNone) roots_.push_back(q);
  }

  GroupId Next() {
    const QueueId leaf = Pick(roots_);
    if (leaf == kNone) return kNone;
    return jobs_[leaf][cursor_[leaf]++];
  }

 private:
  // The leaf whose next job `q`'s subtree hands out, kNone when none.
  QueueId LeafOf(QueueId q) {
    if (s_.snapshot.queues[q].children.empty()) return cursor_[q] < jobs_[q].size() ? q : kNone;
    return Pick(s_.snapshot.queues[q].children);
  }
  QueueId Pick(const std::vector<QueueId>& siblings) {
    QueueId best = kNone, best_leaf = kNone;
    QueueKey best_key;
    for (QueueId q : siblings) {
      const QueueId leaf = LeafOf(q);
      if (leaf == kNone) continue;
      const QueueKey key = s_.rules.queue_order->KeyOf(s_, q, need_[jobs_[leaf][cursor_[leaf]]]);
      if (best == kNone || s_.rules.queue_order->KeyBefore(key, best_key)) {
        best = q;
        best_leaf = leaf;
        best_key = key;
      }
    }
    return best_leaf;
  }

  const Session& s_;
  std::vector<std::vector<GroupId>> jobs_;
  std::vector<size_t> cursor_;
  std::map<GroupId, ResourceVector> need_;
  std::vector<QueueId> roots_;
};

TEST(JobOrderTest, KeptAndRememberedKeysHandOutWhatFreshKeysDo) {
  for (uint32_t seed = 0; seed < 200; ++seed) {
    std::mt19937 rng(seed);
    const Snapshot s = RandomWorld(rng);
    Session session(s, Options{});
    std::vector<GroupId> jobs(s.groups.size());
    std::iota(jobs.begin(), jobs.end(), 0);
    JobOrder order(session, jobs);
    FreshPicks fresh(session, jobs);
    for (size_t n = 0;; ++n) {
      const GroupId g = order.Next();
      ASSERT_EQ(g, fresh.Next()) << "seed " << seed << ", job " << n;
      if (g == kNone) break;
      AllocateJob(session, g, Attempt::kCommitted);
    }
  }
}

}  // namespace

}  // namespace vtenant::sched

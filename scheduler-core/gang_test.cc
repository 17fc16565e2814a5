// Gangs: all-or-nothing with rollback, elastic extras, subgroups, topology,
// and the queue budget checks a job meets before placement.
#include <gtest/gtest.h>

#include <functional>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

SnapshotBuilder World(int nodes, int gpus_per_node, Milli limit = kUnlimited) {
  SnapshotBuilder b = Cluster({{"org", kUnlimited}}, {});
  b.AddQueue(GpuQueue("team", "org", 0, limit));
  for (int n = 0; n < nodes; ++n) b.AddNode(GpuNode("node-" + std::to_string(n), gpus_per_node));
  return b;
}

void AddGang(SnapshotBuilder& b, std::string name, int pods, int min_member, int gpus_each,
             GroupSpec extra = {}) {
  extra.name = name;
  extra.queue = extra.queue.empty() ? "team" : extra.queue;
  extra.min_member = min_member;
  b.AddGroup(extra);
  for (int i = 0; i < pods; ++i) {
    PodSpec p = WholeGpuPod(name + "-" + std::to_string(i), "", gpus_each);
    p.group = name;
    p.creation_time = i;
    b.AddPod(p);
  }
}

// A gang that cannot start binds nothing, holds no GPU, and its pods say why.
// One row per reason a gang cannot start; the loop below checks each alike.
TEST(GangTest, AGangThatCannotStartBindsNothingAndSaysWhy) {
  // Racks a and b of two GPUs each.
  auto racks = [] {
    SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {});
    b.AddNode(GpuNode("a1", 2, kL40sMib, {{"rack", "a"}}));
    b.AddNode(GpuNode("b1", 2, kL40sMib, {{"rack", "b"}}));
    return b;
  };
  struct Case {
    std::string gang;
    std::function<SnapshotBuilder()> world;
    int pods;
    int min_member;
    int gpus_each;
    GroupSpec extra;
    std::string reason;
  };
  const Case cases[] = {
      // All or nothing: the two that fit are rolled back.
      {.gang = "train",
       .world = [] { return World(1, 2); },
       .pods = 3,
       .min_member = 3,
       .gpus_each = 1,
       .reason = "gang train (minMember 3) needs 3 pods placed together; only 2 fit at once"},
      {.gang = "early",
       .world = [] { return World(1, 8); },
       .pods = 2,
       .min_member = 4,
       .gpus_each = 1,
       .reason = "gang early (minMember 4) has 2 pending pods, fewer than the 4 it still needs "
                 "to start"},
      // No rack holds three one-GPU pods, nor one pod asking for three GPUs
      // (named a job, not a gang).
      {.gang = "ring",
       .world = racks,
       .pods = 3,
       .min_member = 3,
       .gpus_each = 1,
       .extra = {.required_topology = "rack"},
       .reason = "gang ring (minMember 3) needs 3 pods within one rack domain; no single domain "
                 "has room"},
      {.gang = "solo",
       .world = racks,
       .pods = 1,
       .min_member = 1,
       .gpus_each = 3,
       .extra = {.required_topology = "rack"},
       .reason = "job solo needs 1 pod within one rack domain; no single domain has room"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.gang);
    SnapshotBuilder b = c.world();
    AddGang(b, c.gang, c.pods, c.min_member, c.gpus_each, c.extra);
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    EXPECT_TRUE(d.binds.empty());
    ASSERT_EQ(d.pending.size(), static_cast<size_t>(c.pods));
    EXPECT_EQ(ReasonOf(d, s, c.gang + "-0"), c.reason);
    EXPECT_EQ(ReportOf(d, s, "team").allocated[kGpu], 0);
  }
}

TEST(GangTest, RolledBackGangLeavesRoomForTheNextJob) {
  SnapshotBuilder b = World(1, 2);
  AddGang(b, "big", 3, 3, 1);
  PodSpec small = WholeGpuPod("small", "team", 2);
  small.creation_time = 100;  // younger: considered after the gang
  b.AddPod(small);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(NodeOf(d, s, "small"), "node-0");
  EXPECT_EQ(d.binds.size(), 1u);
}

TEST(GangTest, ElasticPodsBeyondMinMemberPlaceAsTheyFit) {
  SnapshotBuilder b = World(1, 3);
  AddGang(b, "elastic", 4, 2, 1);
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_EQ(d.binds.size(), 3u);
  EXPECT_NE(ReasonOf(d, s, "elastic-3").find("0/1 nodes fit"), std::string::npos)
      << ReasonOf(d, s, "elastic-3");
}

TEST(GangTest, SubGroupMinimumsArePlacedFirst) {
  SnapshotBuilder b = World(1, 2);
  GroupSpec g;
  g.subgroups = {{"workers", 1}, {"leader", 1}};
  b.AddGroup({.name = "job", .queue = "team", .min_member = 2, .subgroups = g.subgroups});
  // Two workers come first in creation order; without subgroup order both
  // would take the two GPUs and the leader would never run.
  auto member = [](std::string name, std::string subgroup, int64_t created) {
    return PodSpec{.name = std::move(name),
                   .group = "job",
                   .subgroup = std::move(subgroup),
                   .whole_gpus = 1,
                   .creation_time = created};
  };
  for (int i = 0; i < 2; ++i) b.AddPod(member("worker-" + std::to_string(i), "workers", i));
  b.AddPod(member("leader", "leader", 10));
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_NE(BindOf(d, s, "leader"), nullptr);
  EXPECT_NE(BindOf(d, s, "worker-0"), nullptr);
  EXPECT_EQ(BindOf(d, s, "worker-1"), nullptr);
}

// KAI's minSubGroup (a JobSet's PodGroup): the group runs once that many of
// its sub-groups are satisfied, so a cluster with room for one replica runs
// one; without it every replica must fit together.
TEST(GangTest, MinSubGroupRunsThatManyReplicasAndNoMore) {
  for (int32_t min_sub_group : {1, kAllChildren}) {
    SnapshotBuilder b = World(1, 2);
    b.AddGroup({.name = "jobset",
                .queue = "team",
                .subgroups = {{"replica-0", 2}, {"replica-1", 2}},
                .min_sub_group = min_sub_group});
    for (int r = 0; r < 2; ++r) {
      for (int i = 0; i < 2; ++i) {
        b.AddPod({.name = "r" + std::to_string(r) + "-" + std::to_string(i),
                  .group = "jobset",
                  .subgroup = "replica-" + std::to_string(r),
                  .whole_gpus = 1,
                  .creation_time = 2 * r + i});
      }
    }
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    if (min_sub_group == 1) {
      ASSERT_EQ(d.binds.size(), 2u);
      EXPECT_NE(BindOf(d, s, "r0-0"), nullptr);
      EXPECT_NE(BindOf(d, s, "r0-1"), nullptr);
    } else {
      EXPECT_TRUE(d.binds.empty()) << "both replicas (4 GPUs) must fit together on 2";
      EXPECT_EQ(ReasonOf(d, s, "r0-0"),
                "gang jobset (sub-group minimums) needs 4 pods placed together; only 2 fit at "
                "once");
    }
  }
}

// A mid-level sub-group counts its children: "workers" is satisfied by two
// of its three leaves; the group needs it and the leader.
TEST(GangTest, NestedMinSubGroupCountsSatisfiedChildren) {
  SnapshotBuilder b = World(1, 3);
  b.AddGroup({.name = "job",
              .queue = "team",
              .subgroups = {{"leader", 1}, {"w0", 1, 0}, {"w1", 1, 0}, {"w2", 1, 0}},
              .subgroup_sets = {{"workers", kNoParent, 2}}});
  int64_t created = 0;
  for (const char* sub : {"w0", "w1", "w2", "leader"})
    b.AddPod({.name = sub,
              .group = "job",
              .subgroup = sub,
              .whole_gpus = 1,
              .creation_time = created++});
  b.AddPod({.name = "w2-b",
            .group = "job",
            .subgroup = "w2",
            .whole_gpus = 1,
            .creation_time = created++});
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  // Three GPUs: the leader and two workers form the gang; the third worker
  // and the extra pod of w2 find no room.
  ASSERT_EQ(d.binds.size(), 3u);
  EXPECT_NE(BindOf(d, s, "leader"), nullptr);
  EXPECT_NE(BindOf(d, s, "w0"), nullptr);
  EXPECT_NE(BindOf(d, s, "w1"), nullptr);
}

TEST(GangTest, RequiredTopologyKeepsTheGangInOneDomain) {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {});
  // rack-a has 3 free GPUs, rack-b 4: only rack-b holds a gang of four.
  b.AddNode(GpuNode("a1", 2, kL40sMib, {{"rack", "a"}}));
  b.AddNode(GpuNode("a2", 1, kL40sMib, {{"rack", "a"}}));
  b.AddNode(GpuNode("b1", 2, kL40sMib, {{"rack", "b"}}));
  b.AddNode(GpuNode("b2", 2, kL40sMib, {{"rack", "b"}}));
  AddGang(b, "ring", 4, 4, 1, {.required_topology = "rack"});
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  ASSERT_EQ(d.binds.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    std::string node = NodeOf(d, s, "ring-" + std::to_string(i));
    EXPECT_TRUE(node == "b1" || node == "b2") << node;
  }
}

TEST(GangTest, PreferredTopologyFallsBackToTheWholeCluster) {
  SnapshotBuilder b = Cluster({{"team", kUnlimited}}, {});
  b.AddNode(GpuNode("a1", 2, kL40sMib, {{"rack", "a"}}));
  b.AddNode(GpuNode("b1", 2, kL40sMib, {{"rack", "b"}}));
  AddGang(b, "ring", 3, 3, 1, {.preferred_topology = "rack"});
  Snapshot s = MustBuild(b);
  EXPECT_EQ(RunCycle(s).binds.size(), 3u);
}

struct BudgetCase {
  std::string name;
  QueueSpec queue;
  bool preemptible;
  std::string reason;
  PendingKind kind;
};

// The kind of the reason `pod` waits for.
PendingKind KindOf(const Decisions& d, const Snapshot& s, const std::string& pod) {
  for (const Pending& p : d.pending)
    if (s.pods[p.pod].name == pod) return d.KindOf(p);
  ADD_FAILURE() << pod << " is not pending";
  return PendingKind::kPlacement;
}

TEST(GangTest, QueueBudgetIsCheckedForTheWholeGang) {
  QueueSpec non_preemptible_quota = GpuQueue("team", "org", 1000, kUnlimited);
  const BudgetCase cases[] = {
      {"limit", GpuQueue("team", "org", 0, 2000), true,
       "queue team would exceed its gpu limit: 0m allocated + 3000m requested > 2000m limit",
       PendingKind::kOverLimit},
      {"quota for non-preemptible", non_preemptible_quota, false,
       "non-preemptible job would exceed queue team's gpu quota: 0m held by non-preemptible "
       "jobs + 3000m requested > 1000m quota; make the job preemptible or raise the quota",
       PendingKind::kNonPreemptibleOverQuota},
      {"no room", GpuQueue("team", "org", 0, kUnlimited), true, "", PendingKind::kPlacement},
  };
  for (const BudgetCase& c : cases) {
    SnapshotBuilder b = Cluster({{"org", kUnlimited}}, {});
    b.AddQueue(c.queue);
    b.AddNode(GpuNode("n", c.kind == PendingKind::kPlacement ? 2 : 8));
    AddGang(b, "job", 3, 3, 1, {.preemptible = c.preemptible});
    Snapshot s = MustBuild(b);
    Decisions d = RunCycle(s);
    EXPECT_TRUE(d.binds.empty()) << c.name;
    if (!c.reason.empty()) {
      EXPECT_EQ(ReasonOf(d, s, "job-1"), c.reason) << c.name;
    }
    EXPECT_EQ(KindOf(d, s, "job-1"), c.kind) << c.name;
  }
}

TEST(GangTest, ParentLimitBindsChildren) {
  SnapshotBuilder b;
  b.AddQueue(GpuQueue("org", "", 0, 1000));
  b.AddQueue(GpuQueue("team", "org", 0, kUnlimited));
  b.AddNode(GpuNode("n", 4));
  b.AddPod(WholeGpuPod("first", "team", 1));
  b.AddPod({.name = "second", .queue = "team", .whole_gpus = 1, .creation_time = 1});
  Snapshot s = MustBuild(b);
  Decisions d = RunCycle(s);
  EXPECT_NE(BindOf(d, s, "first"), nullptr);
  EXPECT_EQ(ReasonOf(d, s, "second"),
            "queue org would exceed its gpu limit: 1000m allocated + 1000m requested > 1000m "
            "limit");
  EXPECT_EQ(KindOf(d, s, "second"), PendingKind::kOverLimit);
}

// Per job, when asked: what its placed pods hold after the cycle, and what
// all of them ask for (what KAI's PodGroup status.resourcesStatus shows).
TEST(GangTest, GroupReportsSayWhatEachJobHoldsAndAsksFor) {
  SnapshotBuilder b = World(1, 2);
  AddGang(b, "fits", 2, 2, 1);
  AddGang(b, "waits", 3, 3, 1);
  Snapshot s = MustBuild(b);
  EXPECT_TRUE(RunCycle(s).groups.empty()) << "only when asked";
  Decisions d = RunCycle(s, {.report_groups = true});
  ASSERT_EQ(d.groups.size(), s.groups.size());
  for (GroupId g = 0; g < s.groups.size(); ++g) {
    const GroupReport& r = d.groups[g];
    if (s.groups[g].name == "fits") {
      EXPECT_EQ(r.allocated[kGpu], 2000);
      EXPECT_EQ(r.requested[kGpu], 2000);
    } else if (s.groups[g].name == "waits") {
      EXPECT_EQ(r.allocated[kGpu], 0);
      EXPECT_EQ(r.requested[kGpu], 3000);
    }
  }
}

}  // namespace
}  // namespace vtenant::sched

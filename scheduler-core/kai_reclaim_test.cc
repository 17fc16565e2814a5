// KAI Scheduler's reclaim outcomes, restated from its own tests: how whole
// GPUs are divided between queues when reclaiming, gangs of the lowest
// priority taken whole, and victims of equal priority taken newest first.
// Each case names the KAI test it restates (NVIDIA/KAI-Scheduler, under
// pkg/scheduler/actions/); the worlds are KAI's, written in our builder.
//
// KAI's test topologies give job i of n the creation time now - (n - i)
// minutes, so a job listed later is newer; every running job started a
// minute ago; PriorityTrainNumber is 50 (preemptible) and
// PriorityBuildNumber 100 (not). Reclaim runs alone there, so consolidation
// and preemption are off here.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "scheduler-core/node_extras.h"
#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

constexpr int64_t kNow = 10000;
constexpr int kTrain = 50;
constexpr int kBuild = 100;

struct KaiQueue {
  std::string name;
  double deserved_gpus;  // quota
  double over_quota_weight;
  std::string parent;  // empty: a root
  int priority = 0;
};

struct KaiJob {
  std::string name;
  std::string queue;
  Milli gpus_per_task;  // whole GPUs, in milli
  // One entry per task: the node it runs on, or "" when pending.
  std::vector<std::string> tasks;
  int priority = kTrain;
};

struct KaiCase {
  std::string kai_test;  // file: test name
  std::vector<std::pair<std::string, int32_t>> nodes;
  std::vector<KaiQueue> queues;
  std::vector<KaiJob> jobs;
  std::set<std::string> evicted;                // jobs whose every task is evicted
  std::set<std::string> bound;                  // pending jobs that get their tasks bound
  std::map<std::string, Milli> fair_share_gpu;  // per queue, when checked
  // The GPUs are dynamic resource claims' (KAI's DRA tests): the nodes'
  // ResourceSlices publish them, and each task holds or asks for them
  // through a claim, as the scheduler's view gives such pods to the core.
  bool dra = false;
};

// The core resource a node's free GPUs of the claims' class are counted in.
const std::string kDraGpuClass = std::string(kDeviceClassPrefix) + "nvidia.com-gpu";

Snapshot BuildKaiWorld(const KaiCase& c) {
  SnapshotBuilder b;
  b.SetNow(kNow);
  for (const auto& [name, gpus] : c.nodes) {
    NodeSpec node = GpuNode(name, c.dra ? 0 : gpus);
    if (c.dra) {
      node.claim_gpus = gpus;
      node.other_resources[kDraGpuClass] = gpus * 1000;
    }
    b.AddNode(node);
  }
  for (const KaiQueue& q : c.queues) {
    QueueSpec spec = GpuQueue(q.name, q.parent, static_cast<Milli>(q.deserved_gpus * 1000),
                              kUnlimited, q.over_quota_weight);
    spec.priority = q.priority;
    b.AddQueue(spec);
  }
  std::map<std::string, int> next_device;
  const int64_t n = static_cast<int64_t>(c.jobs.size());
  for (int64_t i = 0; i < n; ++i) {
    const KaiJob& job = c.jobs[i];
    const int64_t created = kNow - (n - i) * 60;
    b.AddGroup({.name = job.name,
                .queue = job.queue,
                .min_member = static_cast<int32_t>(job.tasks.size()),
                .priority = job.priority,
                .creation_time = created});
    for (size_t t = 0; t < job.tasks.size(); ++t) {
      PodSpec pod{.name = job.name + "-" + std::to_string(t),
                  .group = job.name,
                  .whole_gpus = static_cast<int32_t>(job.gpus_per_task / 1000),
                  .creation_time = created};
      if (c.dra) {
        pod.claim_gpus = std::exchange(pod.whole_gpus, 0);
        pod.other_resources[kDraGpuClass] = job.gpus_per_task;
      }
      if (!job.tasks[t].empty()) {
        std::vector<int> devices;
        for (int32_t d = 0; d < pod.whole_gpus; ++d) devices.push_back(next_device[job.tasks[t]]++);
        pod = Running(pod, job.tasks[t], devices, kNow - 60);
      }
      b.AddPod(pod);
    }
  }
  return MustBuild(b);
}

void RunKaiCase(const KaiCase& c) {
  SCOPED_TRACE(c.kai_test);
  const Snapshot s = BuildKaiWorld(c);
  Options o;
  o.consolidate = o.preempt = false;
  const Decisions d = RunCycle(s, o);
  std::map<std::string, int> evicted_tasks, bound_tasks;
  for (const Eviction& e : d.evictions) ++evicted_tasks[s.groups[s.pods[e.pod].group].name];
  for (const Bind& bind : d.binds) ++bound_tasks[s.groups[s.pods[bind.pod].group].name];
  std::set<std::string> evicted, bound;
  for (const KaiJob& job : c.jobs) {
    const int tasks = static_cast<int>(job.tasks.size());
    const int running =
        tasks - static_cast<int>(std::count(job.tasks.begin(), job.tasks.end(), ""));
    // A gang victim is taken whole or not at all.
    if (evicted_tasks[job.name] > 0) {
      EXPECT_EQ(evicted_tasks[job.name], running) << job.name << " was split";
      evicted.insert(job.name);
    }
    if (bound_tasks[job.name] > 0) bound.insert(job.name);
  }
  EXPECT_EQ(evicted, c.evicted);
  EXPECT_EQ(bound, c.bound);
  for (const auto& [queue, share] : c.fair_share_gpu)
    EXPECT_EQ(ReportOf(d, s, queue).fair_share[kGpu], share) << queue;
}

std::vector<std::string> On(const std::string& node, int tasks) {
  return std::vector<std::string>(tasks, node);
}
std::vector<std::string> Pending(int tasks) { return std::vector<std::string>(tasks, ""); }

// Whole GPUs over quota are divided by weight and floored to whole devices,
// the leftover going to the largest remainder; reclaim then takes a queue
// above its share down to it, not past it.
TEST(KaiReclaimTest, WholeGpuFairShareDividedAsKaiDoes) {
  const KaiCase cases[] = {
      {"integration_tests/reclaim/reclaim_test.go: Verify we do only 1 round of GPU allocation "
       "for whole GPUs jobs, and give the GPUs to the one with the bigger remaining - this is a "
       "bug we had",
       {{"node0", 8}},
       {{"queue0", 4, 4}, {"queue1", 2, 2}},
       {{"running_job0", "queue0", 5000, On("node0", 1)},
        {"running_job1", "queue0", 1000, On("node0", 1)},
        {"running_job2", "queue0", 1000, On("node0", 1)},
        {"pending_job0", "queue1", 3000, Pending(1)}},
       {"running_job1", "running_job2"},
       {"pending_job0"},
       {{"queue0", 5000}, {"queue1", 3000}}},
      {"integration_tests/reclaim/reclaim_test.go: 1 queue with big quota will be satisfied with "
       "1 gpu, give the rest of the gpus according to the last test",
       {{"node0", 9}},
       {{"queue0", 4, 4}, {"queue1", 4, 4}, {"queue2", 10, 10}},
       {{"running_job0", "queue0", 5000, On("node0", 1)},
        {"running_job1", "queue0", 2000, On("node0", 1)},
        {"running_job2", "queue0", 1000, On("node0", 1)},
        {"pending_job3", "queue2", 1000, Pending(1), kTrain},
        {"pending_job0", "queue1", 3000, Pending(1)}},
       {"running_job1", "running_job2"},
       {"pending_job0", "pending_job3"},
       {{"queue0", 5000}, {"queue1", 3000}, {"queue2", 1000}}},
      {"integration_tests/reclaim/reclaim_test.go: Verify we do only 1 round of GPU allocation "
       "for whole GPUs jobs - this is a bug we had",
       {{"node0", 4}},
       {{"queue0", 2, 2}, {"queue1", 1, 1}},
       {{"running_job0", "queue0", 3000, On("node0", 1)},
        {"pending_job0", "queue1", 2000, Pending(1)}},
       {},
       {},
       {{"queue0", 3000}, {"queue1", 1000}}},
      {"integration_tests/reclaim/reclaim_test.go: Reclaim according to the reclaimable deserved "
       "GPUs, queue0 has 1 GPU from remaining from setQueueReclaimableResources remaining logic",
       {{"node0", 7}},
       {{"queue0", 2, 2}, {"queue1", 1, 1}},
       {{"running_job0", "queue0", 4000, On("node0", 1)},
        {"running_job1", "queue1", 3000, On("node0", 1)},
        {"pending_job0", "queue0", 1000, Pending(1)}},
       {"running_job1"},
       {"pending_job0"},
       {{"queue0", 5000}, {"queue1", 2000}}},
      {"integration_tests/reclaim/reclaim_test.go: Reclaim according to the fairness ratio, more "
       "GPUs then sum of deserved GPUs",
       {{"node0", 8}},
       {{"queue0", 1, 1}, {"queue1", 1, 1}},
       {{"running_job0", "queue0", 1000, On("node0", 1)},
        {"running_job1", "queue0", 3000, On("node0", 1)},
        {"running_job2", "queue0", 4000, On("node0", 1)},
        {"pending_job0", "queue1", 4000, Pending(1)},
        {"pending_job1", "queue1", 4000, Pending(1)}},
       {"running_job2"},
       {"pending_job0"},
       {{"queue0", 4000}, {"queue1", 4000}}},
      {"reclaim/reclaim_test.go: reclaim from job that allocated more resources than its' "
       "fairShare (remaining was given to queue with lower over quota weight)",
       {{"node0", 12}},
       {{"queue0", 2, 1}, {"queue1", 2, 2}},
       {{"running_job0", "queue0", 10000, On("node0", 1)},
        {"pending_job0", "queue1", 7000, Pending(1)}},
       {"running_job0"},
       {"pending_job0"},
       {{"queue0", 5000}, {"queue1", 7000}}},
      {"reclaim/reclaim_test.go: reclaim from multiple queues running on multiple nodes for a "
       "job with multiple tasks",
       {{"node0", 2}, {"node1", 2}},
       {{"queue0", 0, 0}, {"queue1", 1, 0}, {"queue2", 3, 0}},
       {{"job0", "queue0", 1000, On("node0", 1)},
        {"job1", "queue1", 1000, On("node0", 1)},
        {"job2", "queue0", 1000, On("node1", 1)},
        {"job3", "queue1", 1000, On("node1", 1)},
        {"pending_job", "queue2", 1000, Pending(3)}},
       {"job0", "job2", "job3"},
       {"pending_job"},
       {{"queue0", 0}, {"queue1", 1000}, {"queue2", 3000}}},
  };
  for (const KaiCase& c : cases) RunKaiCase(c);
}

// A gang victim leaves whole: every task of it is evicted, on every node,
// even when fewer would make room.
TEST(KaiReclaimTest, GangVictimsAreTakenWhole) {
  const KaiCase cases[] = {
      {"reclaim/reclaimGang_test.go: job reclaims from job on two nodes",
       {{"node0", 1}, {"node1", 1}},
       {{"queue0", 1, 1}, {"queue1", 1, 1}},
       {{"running-job0", "queue0", 1000, {"node0", "node1"}},
        {"pending-job", "queue1", 1000, Pending(1)}},
       {"running-job0"},
       {"pending-job"}},
      // The same world with a third node whose newer job holds less but
      // ranks higher: KAI's victim order is its job order reversed
      // (plugins/priority: the lower priority first), so the gang goes,
      // whole, and not the smaller single job.
      {"reclaim/reclaimGang_test.go: job reclaims from job on two nodes, plus a higher-priority "
       "job on a third node",
       {{"node0", 1}, {"node1", 1}, {"node2", 1}},
       {{"queue0", 1, 1}, {"queue1", 1, 1}},
       {{"running-job0", "queue0", 1000, {"node0", "node1"}, kTrain - 1},
        {"running-job1", "queue0", 1000, On("node2", 1)},
        {"pending-job", "queue1", 1000, Pending(1)}},
       {"running-job0"},
       {"pending-job"}},
      {"reclaim/reclaimGang_test.go: reclaim mpi job",
       {{"node0", 2}},
       {{"queue0", 0, 0}, {"queue1", 2, 2}},
       {{"running_job0", "queue0", 1000, On("node0", 2)},
        {"pending_job0", "queue1", 2000, Pending(1), kBuild}},
       {"running_job0"},
       {"pending_job0"}},
      {"reclaim/reclaimGang_test.go: Reclaim other job and pipeline all tasks of job",
       {{"node0", 2}},
       {{"queue0", 0, 0}, {"queue1", 2, 2}},
       {{"running_job0", "queue0", 1000, On("node0", 1)},
        {"pending_job0", "queue1", 1000, Pending(2), kBuild}},
       {"running_job0"},
       {"pending_job0"}},
      {"reclaim/reclaimGang_test.go: If can't allocate all tasks, dont' reclaim",
       {{"node0", 1}},
       {{"queue0", 0, 0}, {"queue1", 2, 2}},
       {{"running_job0", "queue0", 1000, On("node0", 1)},
        {"pending_job0", "queue1", 1000, Pending(2), kBuild}},
       {},
       {}},
      {"reclaim/reclaim_test.go: queue0 is over fair share, queue1 is under fair share - reclaim "
       "for job with multiple tasks from job with multiple tasks",
       {{"node0", 1}, {"node1", 1}, {"node2", 1}, {"node3", 1}},
       {{"queue0", 1, 0}, {"queue1", 2, 1}},
       {{"q0_job0", "queue0", 1000, {"node0", "node1", "node2"}},
        {"q0_job1", "queue0", 1000, On("node3", 1)},
        {"q1_job1", "queue1", 1000, Pending(3)}},
       {"q0_job0"},
       {"q1_job1"}},
  };
  for (const KaiCase& c : cases) RunKaiCase(c);
}

// Queues of different depths: a leaf at the top of the tree, beside a
// department with a child, gives up what it holds over its share (0) to
// the child's pending job.
TEST(KaiReclaimTest, ALeafAtTheTopIsReclaimedFromByADepartmentsChild) {
  RunKaiCase(
      {"reclaim/reclaim_cross_hierarchy_root_leaf_test.go: "
       "TestReclaimCrossHierarchyRootLeafVictimDoesNotPanic",
       {{"node0", 1}},
       {{"default", 1, 1}, {"inference-default", 1, 1, "default"}, {"non-gpu", 0, 1}},
       {{"root-leaf-victim", "non-gpu", 1000, On("node0", 1)},
        {"inference-pending", "inference-default", 1000, Pending(1)}},
       {"root-leaf-victim"},
       {"inference-pending"}});
}

// KAI's reclaim of GPUs that pods hold through dynamic resource claims:
// the same division as for devices, the claims' devices freed by the
// eviction going to the reclaimer.
TEST(KaiReclaimTest, ResourceClaimGpusAreReclaimedAsDevicesAre) {
  const KaiCase cases[] = {
      {"integration_tests/reclaim/reclaim_gpu_dra_test.go: queue0 is under fair share, queue1 is "
       "over fair share - reclaim",
       {{"node0", 8}},
       {{"queue0", 2, 6}, {"queue1", 4, 2}},
       {{"q0_job0", "queue0", 2000, On("node0", 1)},
        {"q0_job1", "queue0", 1000, On("node0", 1)},
        {"q0_job2", "queue0", 1000, Pending(1)},
        {"q1_job0", "queue1", 4000, On("node0", 1)},
        {"q1_job1", "queue1", 1000, On("node0", 1)}},
       {"q1_job1"},
       {"q0_job2"},
       {},
       true},
      {"integration_tests/reclaim/reclaim_gpu_dra_test.go: 1 train job running for queue0, 1 "
       "train job pending for queue1 - reclaim",
       {{"node0", 2}},
       {{"queue0", 1, 1}, {"queue1", 1, 1}},
       {{"running_job0", "queue0", 2000, On("node0", 1)},
        {"pending_job0", "queue1", 1000, Pending(1)}},
       {"running_job0"},
       {"pending_job0"},
       {},
       true},
      {"integration_tests/reclaim/reclaim_gpu_dra_test.go: 2 jobs running for queue0 on 3 GPUs, "
       "1 job running for queue1 on 1 GPU, 1 pending job for queue1, deserved of queue1 is 1 - "
       "don't reclaim",
       {{"node0", 2}, {"node1", 2}},
       {{"queue0", 2, 2}, {"queue1", 1, 1}},
       {{"running_job0", "queue0", 1000, On("node1", 1)},
        {"running_job1", "queue0", 2000, On("node0", 1)},
        {"running_job2", "queue1", 1000, On("node1", 1)},
        {"pending_job0", "queue1", 1000, Pending(1)}},
       {},
       {},
       {},
       true},
      // Its overflowing job never reaches the core: its claims ask for more
      // devices than a claim can be given, and it waits saying so.
      {"integration_tests/reclaim/reclaim_dra_overflow_test.go: overflowing DRA request does not "
       "block reclaim for a valid request in the same queue",
       {{"node0", 2}},
       {{"reclaiming-queue", 2, 1}, {"victim-queue", 0, 1}},
       {{"valid-job", "reclaiming-queue", 2000, Pending(1)},
        {"victim-job", "victim-queue", 2000, On("node0", 1)}},
       {"victim-job"},
       {"valid-job"},
       {},
       true},
  };
  for (const KaiCase& c : cases) RunKaiCase(c);
}

// Victims of one priority leave newest first, whatever they hold; a lower
// priority leaves before.
TEST(KaiReclaimTest, EqualPriorityVictimsAreTakenNewestFirst) {
  const KaiCase cases[] = {
      {"reclaim/reclaim_test.go: 2 jobs from queue0 running on node0 - 2 pending jobs from "
       "queue1 - reclaim",
       {{"node0", 2}},
       {{"queue0", 1, 1}, {"queue1", 1, 1}},
       {{"running_job0", "queue0", 1000, On("node0", 1)},
        {"running_job1", "queue0", 1000, On("node0", 1)},
        {"pending_job0", "queue1", 1000, Pending(1)},
        {"pending_job1", "queue1", 1000, Pending(1)}},
       {"running_job1"},
       {"pending_job0"}},
      {"reclaim/reclaim_test.go: Reclaim jobs according to queue fair share",
       {{"node0", 6}},
       {{"d1", 1, 1},
        {"queue0", 1, 1, "d1"},
        {"queue1", 1, 1, "d1"},
        {"reclaimer_queue", 2, 0, "d1"}},
       {{"q0_running_job0", "queue0", 1000, On("node0", 1)},
        {"q0_running_job1", "queue0", 1000, On("node0", 1)},
        {"q0_running_job2", "queue0", 1000, On("node0", 1), kTrain - 1},
        {"q1_running_job0", "queue1", 1000, On("node0", 1)},
        {"q1_running_job1", "queue1", 1000, On("node0", 1)},
        {"q1_running_job2", "queue1", 1000, On("node0", 1), kTrain - 1},
        {"reclaimer", "reclaimer_queue", 1000, Pending(2)}},
       {"q0_running_job2", "q1_running_job2"},
       {"reclaimer"}},
      {"integration_tests/reclaim/reclaim_test.go: Reclaim trains according to priority",
       {{"node0", 8}},
       {{"d1", 1, 1},
        {"queue0", 1, 2, "d1"},
        {"queue1", 1, 1, "d1"},
        {"reclaimer_queue", 0, 1, "d1", 1}},
       {{"q0_running_job0", "queue0", 1000, On("node0", 1)},
        {"q0_running_job1", "queue0", 1000, On("node0", 1)},
        {"q0_running_job2", "queue0", 1000, On("node0", 1)},
        {"q0_running_job3", "queue0", 1000, On("node0", 1)},
        {"q0_running_job4", "queue0", 1000, On("node0", 1)},
        {"q1_running_job0", "queue1", 1000, On("node0", 1)},
        {"q1_running_job1", "queue1", 1000, On("node0", 1)},
        {"q1_running_job2", "queue1", 1000, On("node0", 1)},
        {"reclaimer", "reclaimer_queue", 3000, Pending(1)}},
       {"q0_running_job3", "q0_running_job4", "q1_running_job2"},
       {"reclaimer"}},
      {"integration_tests/reclaim/reclaim_test.go: (This is used by the demo) 2 jobs running for "
       "queue0 on 3 GPUs, 1 job running for queue1 on 1 GPU, 1 pending job for queue1 - reclaim",
       {{"node0", 2}, {"node1", 2}},
       {{"queue0", 2, 2}, {"queue1", 2, 2}},
       {{"running_job0", "queue0", 1000, On("node0", 1)},
        {"running_job1", "queue1", 2000, On("node1", 1)},
        {"running_job2", "queue1", 1000, On("node0", 1)},
        {"pending_job0", "queue0", 1000, Pending(1)}},
       {"running_job2"},
       {"pending_job0"}},
  };
  for (const KaiCase& c : cases) RunKaiCase(c);
}

}  // namespace
}  // namespace vtenant::sched

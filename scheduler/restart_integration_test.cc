// Integration: vtenant-scheduler (the real binary) killed with SIGKILL while
// binding 200 pods, then started again. Afterwards every pod runs, none was
// bound twice, no GPU is over-full, and no reservation pod or GPU ConfigMap
// is left without a pod that needs it. And the binary's time-based
// fairshare, with its history kept in a ConfigMap.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "base/eventually.h"
#include "localenv/process.h"
#include "localenv/testing/cluster_test.h"
#include "localenv/tools.h"
#include "scheduler/core_pod.h"
#include "scheduler/kai_names.h"
#include "scheduler/testing/scheduler_cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler {
namespace {

using namespace testing;

constexpr int kPods = 200;

class RestartTest : public SchedulerClusterTest {
 protected:
  static void SetUpTestSuite() {
    // This suite's own nodes; every scheduler suite starts its cluster alike
    // (testing/scheduler_cluster_test.h).
    StartWithNodes("sched-restart", R"(
nodes:
- {name: gpu, count: 20, cpu: 64, memory: 512Gi, gpus: 8, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
)",
                   {"work", "fair"});
    if (HasFatalFailure()) return;
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("team", "", -1)).ok());
  }
  Result<localenv::Process> StartBinary(int port, const std::string& log, int workers,
                                        const std::vector<std::string>& more = {}) {
    std::vector<std::string> argv = {VTENANT_SCHEDULER,
                                     "--kubeconfig",
                                     cluster().api_server().kubeconfig_path(),
                                     "--webhook-address",
                                     "127.0.0.1:" + std::to_string(port),
                                     "--health-address=",
                                     "--cycle-period",
                                     "200ms",
                                     "--bind-workers",
                                     std::to_string(workers)};
    argv.insert(argv.end(), more.begin(), more.end());
    return localenv::Process::Start({.argv = argv, .log_path = cluster().dir() + "/" + log});
  }

  // Time-based fairshare in the real binary, run with `flags`: queues
  // <prefix>c and <prefix>d, under a parent limited to one GPU, both want
  // it. c has it first (no history yet, and the older queue takes the odd
  // GPU); once c's usage shows, d reclaims it. The history is kept in its
  // ConfigMap beside the leader Lease.
  void QueuesTakeTurns(const std::string& prefix, const std::vector<std::string>& flags) {
    const std::string parent = prefix + "pair", c = prefix + "c", d = prefix + "d";
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest(parent, "", 0, 1)).ok());
    for (const std::string& q : {c, d}) {
      Object queue = QueueManifest(q, parent, 0);
      kube::SetString(queue, {"spec"}, "reclaimMinRuntime", "2s");
      ASSERT_TRUE(client().Create(res::kQueues, "", queue).ok());
    }
    Result<int> port = localenv::PickFreeLoopbackPort();
    ASSERT_TRUE(port.ok());
    Result<localenv::Process> scheduler =
        StartBinary(*port, "scheduler-" + parent + ".log", 4, flags);
    ASSERT_TRUE(scheduler.ok()) << scheduler.status().ToString();
    auto run = [](const std::string& name, const std::string& queue) {
      Status s;
      EXPECT_TRUE(Eventually([&] {
        s = client()
                .Create(res::kPods, "fair",
                        PodManifest("fair", name, {.queue = queue, .whole_gpus = 1}))
                .status();
        return s.ok() || s.code() == StatusCode::kAlreadyExists;
      })) << s.ToString();
    };
    run(c + "-0", c);
    ASSERT_FALSE(NodeOnceRunning(client(), "fair", c + "-0").empty());
    run(d + "-0", d);
    EXPECT_FALSE(NodeOnceRunning(client(), "fair", d + "-0").empty())
        << d << " never had the GPU; logs in " << cluster().dir();
    EXPECT_FALSE(EventMessages(client(), "fair", c + "-0", "Reclaimed").empty());
    EXPECT_TRUE(Eventually([&] {
      Result<Object> saved = client().Get(res::kConfigMaps, "default", "vtenant-scheduler-usage");
      return saved.ok() && kube::GetString(*saved, {"data", "history"}).find("\"" + c + "\"") !=
                               std::string::npos;
    })) << "no usage history saved";
    scheduler->Stop();
    // The GPU free for the next case.
    for (const std::string& pod : {c + "-0", d + "-0"})
      (void)client().Delete(res::kPods, "fair", pod, {.grace_period_seconds = 0});
    EXPECT_TRUE(Eventually([&] { return Pods("fair").empty(); }, std::chrono::seconds(60)));
  }

  static std::vector<Object> Pods(const std::string& ns) {
    Result<kube::ObjectList> l = client().ListAll(res::kPods, ns);
    return l.ok() ? std::move(l->items) : std::vector<Object>{};
  }
  static int Bound() {
    int n = 0;
    for (const Object& p : Pods("work")) n += !kube::GetString(p, {"spec", "nodeName"}).empty();
    return n;
  }
};

TEST_F(RestartTest, KilledWhileBindingLeavesNothingHalfDoneOrDoubled) {
  Result<int> port = localenv::PickFreeLoopbackPort();
  ASSERT_TRUE(port.ok());
  Result<localenv::Process> first = StartBinary(*port, "scheduler-1.log", 1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // The webhook must be registered before sharing pods can be created.
  ASSERT_TRUE(Eventually([&] {
    return client()
        .Get({"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
              "MutatingWebhookConfiguration", false},
             "", "vtenant-scheduler")
        .ok();
  }));
  for (int i = 0; i < kPods; ++i) {
    PodOptions o{.queue = "team"};
    if (i % 2 == 0)
      o.annotations = {{"gpu-fraction", "0.5"}};
    else
      o.whole_gpus = 1;
    Status s;
    ASSERT_TRUE(Eventually([&] {
      s = client()
              .Create(res::kPods, "work", PodManifest("work", "p" + std::to_string(i), o))
              .status();
      return s.ok() || s.code() == StatusCode::kAlreadyExists;
    })) << s.ToString();
  }
  // Kill it mid-way.
  ASSERT_TRUE(Eventually([&] { return Bound() >= 20; }, std::chrono::seconds(120)));
  first->Stop(std::chrono::milliseconds(0));
  const int bound_at_kill = Bound();
  RecordProperty("bound_at_kill", bound_at_kill);
  EXPECT_LT(bound_at_kill, kPods) << "finished before the kill; nothing was interrupted";

  Result<localenv::Process> second = StartBinary(*port, "scheduler-2.log", 16);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "work", "Running") == kPods; },
                         std::chrono::seconds(180)))
      << CountPods(client(), "work", "Running") << " running; logs in " << cluster().dir();

  // No GPU over-full: per node and device, shares within one GPU, and whole
  // GPUs plus shared devices within the node's eight.
  std::map<std::pair<std::string, int>, int> share;  // milli per device
  std::map<std::string, int> whole;
  std::set<std::pair<std::string, int>> shared_devices;
  std::set<std::string> configmaps_needed;
  for (const Object& p : Pods("work")) {
    const std::string node(kube::GetString(p, {"spec", "nodeName"}));
    if (kube::Annotation(p, kGpuFractionAnnotation)) {
      Result<std::vector<int>> idx =
          ParseGpuIndices(kube::Annotation(p, kGpuIndexAnnotation).value_or(""));
      ASSERT_TRUE(idx.ok() && idx->size() == 1) << kube::Name(p);
      share[{node, (*idx)[0]}] += 500;
      shared_devices.insert({node, (*idx)[0]});
      const std::string prefix(kube::Annotation(p, kSharedGpuConfigMapAnnotation).value_or(""));
      configmaps_needed.insert(prefix + "-0");
      configmaps_needed.insert(prefix + "-0-evar");
    } else {
      ++whole[node];
    }
  }
  for (const auto& [device, milli] : share)
    EXPECT_LE(milli, 1000) << device.first << "/" << device.second;
  std::map<std::string, int> shared_per_node;
  for (const auto& d : shared_devices) ++shared_per_node[d.first];
  for (const auto& [node, n] : whole) EXPECT_LE(n + shared_per_node[node], 8) << node;

  // Exactly one reservation pod per shared device, none orphaned.
  EXPECT_TRUE(Eventually([&] {
    std::set<std::pair<std::string, int>> reserved;
    size_t count = 0;
    for (const Object& r : Pods("vtenant-reservation")) {
      if (kube::IsBeingDeleted(r)) continue;
      ++count;
      reserved.insert({std::string(kube::GetString(r, {"spec", "nodeName"})),
                       std::stoi(std::string(
                           kube::Annotation(r, kReservationIndexAnnotation).value_or("-1")))});
    }
    return reserved == shared_devices && count == shared_devices.size();
  })) << "reservation pods do not match the shared devices";

  // Every GPU ConfigMap belongs to a pod that uses it.
  Result<kube::ObjectList> cms = client().ListAll(res::kConfigMaps, "work");
  ASSERT_TRUE(cms.ok());
  std::set<std::string> present;
  for (const Object& cm : cms->items)
    if (std::string_view(kube::Name(cm)).ends_with("-shared-gpu-0") ||
        std::string_view(kube::Name(cm)).ends_with("-shared-gpu-0-evar"))
      present.insert(std::string(kube::Name(cm)));
  EXPECT_EQ(present, configmaps_needed);

  // Nobody was bound twice: the API server refuses a second binding, and the
  // scheduler never tried one.
  kube::ListOptions failed;
  failed.field_selector = "reason=FailedBinding";
  Result<kube::ObjectList> events = client().ListAll(res::kEvents, "work", failed);
  ASSERT_TRUE(events.ok());
  for (const Object& e : events->items)
    EXPECT_EQ(std::string(kube::GetString(e, {"message"})).find("already"), std::string::npos)
        << kube::GetString(e, {"message"});
  second->Stop();
}

TEST_F(RestartTest, TimeBasedFairshareHandsTheGpuOnAndKeepsItsHistory) {
  QueuesTakeTurns("", {"--usage-window=60s", "--usage-resolution=1s"});
}

// KAI's cron window, on without a window size: usage counted since the
// year began (Januarys 1st, 00:00 UTC) hands the GPU on alike.
TEST_F(RestartTest, ACronWindowHandsTheGpuOnToo) {
  QueuesTakeTurns("cron-",
                  {"--usage-window-type=cron", "--usage-cron=@yearly", "--usage-resolution=1s"});
}

}  // namespace
}  // namespace vtenant::scheduler

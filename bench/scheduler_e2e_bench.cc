// bench_scheduler_e2e: vtenant-scheduler against the real kube-scheduler,
// binding pods end to end through one local API server, in one run.
//
//   bench_scheduler_e2e [--nodes=100] [--gpus=8] [--pods=2000] [--fraction=0.25]
//
// Starts etcd, kube-apiserver, kube-controller-manager and kwok with
// `nodes` simulated nodes of `gpus` GPUs (localenv), then, one after the
// other on the same cluster:
//   1. kube-scheduler (.tools/bin, built by hack/) binds `pods` pending
//      one-GPU pods (as many as fit);
//   2. vtenant-scheduler does the same with the same pods, spread over four
//      queues with quotas under one parent (so fair share is computed);
//   3. vtenant-scheduler binds `pods` GPU-sharing pods (gpu-fraction), which
//      kube-scheduler cannot do, so ours alone.
// Both schedulers get the same client rate limit (100 qps, burst 200) on
// each of their clients, as each program makes them: kube-scheduler's main
// client and its Events' own; vtenant-scheduler's main client (binds,
// evictions), its bookkeeping writers' own (PodGroups, status;
// SchedulerApp's AppOptions::bookkeeping_client) and its binds' Scheduled
// Events' own (AppOptions::events_client). The
// rate is pods bound / seconds from the first bind to the last one that
// fits; "total" counts from the moment the scheduler was started. Prints a
// Markdown table for bench/RESULTS.md.
#include <glog/logging.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/flags.h"
#include "kai/names.h"
#include "kube/json_builder.h"
#include "kube/rest_client.h"
#include "localenv/local_cluster.h"
#include "localenv/process.h"
#include "localenv/tools.h"
#include "scheduler/scheduler_app.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::bench {
namespace {

using Clock = std::chrono::steady_clock;
namespace res = kube::resources;
using scheduler::testing::PodManifest;
using scheduler::testing::PodOptions;

struct Options {
  bool help = false;
  int nodes = 100;
  int gpus = 8;
  int pods = 2000;
  double fraction = 0.25;
};

const char kUsage[] =
    "usage: bench_scheduler_e2e [--nodes=100] [--gpus=8] [--pods=2000] [--fraction=0.25]\n"
    "Binds the same pods with kube-scheduler and with vtenant-scheduler on one local\n"
    "cluster of simulated GPU nodes, then GPU-sharing pods with vtenant-scheduler alone.\n";

// The flags (base/flags.h's syntax), a table like every tool's: alike in
// form on purpose, the flags differ.
Result<Options> ParseOptions(const std::vector<std::string>& args) {
  Options o;
  VT_ASSIGN_OR_RETURN(
      SplitCommandLine split,
      ApplyFlags(args, {WholeNumberFlag("nodes", &o.nodes, 1, 1000000),
                        WholeNumberFlag("gpus", &o.gpus, 1, 1000000),
                        WholeNumberFlag("pods", &o.pods, 1, 1000000),
                        {"fraction", [&o](const std::string& v) {
                           VT_ASSIGN_OR_RETURN(o.fraction, ParseNumberFlag("fraction", v, 0.01));
                           if (o.fraction >= 1)
                             return InvalidArgument("--fraction must be below 1 (a shared GPU)");
                           return Status::Ok();
                         }}}));
  o.help = split.help;
  return o;
}

struct RoundResult {
  std::string name;
  int bound = 0;
  double first_bind_s = 0;  // after start
  double last_bind_s = 0;
  double rate() const {
    return last_bind_s > first_bind_s ? (bound - 1) / (last_bind_s - first_bind_s) : 0;
  }
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

int CountBound(kube::Client& c, const std::string& ns) {
  Result<kube::ObjectList> l = c.ListAll(res::kPods, ns);
  if (!l.ok()) return -1;
  int n = 0;
  for (const kube::Object& p : l->items) n += !kube::GetString(p, {"spec", "nodeName"}).empty();
  return n;
}

// Creates the pods with 16 threads (driver client, no rate limit).
void CreatePods(kube::Client& c, const std::string& ns, int n,
                const std::function<PodOptions(int)>& make) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&, t] {
      for (int i = t; i < n; i += 16) {
        Status s =
            c.Create(res::kPods, ns, PodManifest(ns, "p" + std::to_string(i), make(i))).status();
        if (!s.ok()) LOG(FATAL) << "creating pod " << i << ": " << s.ToString();
      }
    });
  for (auto& t : threads) t.join();
}

void DeletePods(kube::Client& c, const std::string& ns, int n) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&, t] {
      for (int i = t; i < n; i += 16) (void)c.Delete(res::kPods, ns, "p" + std::to_string(i));
    });
  for (auto& t : threads) t.join();
  while (true) {
    Result<kube::ObjectList> l = c.ListAll(res::kPods, ns);
    if (l.ok() && l->items.empty()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// Polls until `expect` pods are bound (or 10 minutes pass).
RoundResult Watch(kube::Client& c, const std::string& ns, int expect, Clock::time_point start,
                  std::string name) {
  RoundResult r{std::move(name)};
  while (Seconds(Clock::now() - start) < 600) {
    int bound = CountBound(c, ns);
    double t = Seconds(Clock::now() - start);
    if (bound > 0 && r.first_bind_s == 0) r.first_bind_s = t;
    if (bound > r.bound) {
      r.bound = bound;
      r.last_bind_s = t;
    }
    if (bound >= expect) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return r;
}

Status Namespace(kube::Client& c, const std::string& ns) {
  return c
      .Create(res::kNamespaces, "",
              kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                               {"kind", "Namespace"},
                                               {"metadata", kube::JsonObject{{"name", ns}}}}))
      .status();
}

int Main(const Options& o) {
  std::string dir = "/tmp/vtenant-bench-sched-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) return 1;
  localenv::LocalClusterOptions lo;
  lo.dir = dir;
  for (int i = 0; i < o.nodes; ++i)
    lo.nodes.push_back({.name = "gpu-" + std::to_string(i),
                        .cpu_milli = 128000,
                        .memory_bytes = int64_t{1} << 40,
                        .gpus = o.gpus,
                        .gpu_product = "NVIDIA-L40S",
                        .gpu_memory_mib = 46068,
                        .max_pods = 250});
  lo.manifests = scheduler::testing::KaiCrdManifests();
  auto cluster = localenv::LocalCluster::Start(lo);
  if (!cluster.ok()) {
    std::cerr << cluster.status().ToString() << "\n";
    return 1;
  }
  kube::RestConfig driver_config = (*cluster)->api_server().admin_config();
  driver_config.qps = 0;
  auto driver_rest = kube::RestClient::Create(driver_config).value();
  kube::Client* driver = driver_rest.get();
  kube::RestConfig sched_config = (*cluster)->api_server().admin_config();
  sched_config.qps = 100;
  sched_config.burst = 200;
  auto sched_client = kube::RestClient::Create(sched_config).value();
  auto sched_bookkeeping = kube::RestClient::Create(sched_config).value();
  auto sched_events = kube::RestClient::Create(sched_config).value();
  const scheduler::AppOptions app_options{.handle_signals = false,
                                          .bookkeeping_client = sched_bookkeeping.get(),
                                          .events_client = sched_events.get()};

  (void)driver->Create(res::kQueues, "", scheduler::testing::QueueManifest("org", "", -1));
  for (int q = 0; q < 4; ++q)
    (void)driver->Create(res::kQueues, "",
                         scheduler::testing::QueueManifest("team-" + std::to_string(q), "org",
                                                           o.nodes * o.gpus / 4.0 * 0.5, -1, 1));
  for (const char* ns : {"ks", "vt", "vtf"}) (void)Namespace(*driver, ns);
  const int capacity = o.nodes * o.gpus;
  std::vector<RoundResult> results;

  // 1. kube-scheduler.
  {
    CreatePods(*driver, "ks", o.pods, [](int) {
      return PodOptions{.whole_gpus = 1, .scheduler_name = "default-scheduler"};
    });
    int port = localenv::PickFreeLoopbackPort().value();
    const auto start = Clock::now();
    auto ks = localenv::Process::Start(
        {.argv = {localenv::FindTool("kube-scheduler").value(), "--kubeconfig",
                  (*cluster)->api_server().kubeconfig_path(), "--leader-elect=false",
                  "--kube-api-qps=100", "--kube-api-burst=200",
                  "--secure-port=" + std::to_string(port), "--bind-address=127.0.0.1"},
         .log_path = dir + "/kube-scheduler.log"});
    if (!ks.ok()) LOG(FATAL) << ks.status().ToString();
    results.push_back(
        Watch(*driver, "ks", std::min(o.pods, capacity), start, "kube-scheduler, whole GPU"));
    ks->Stop();
    DeletePods(*driver, "ks", o.pods);
  }
  // 2 and 3. vtenant-scheduler.
  scheduler::SchedulerFlags flags;
  flags.webhook_address = "127.0.0.1:" + std::to_string(localenv::PickFreeLoopbackPort().value());
  flags.health_address = "";
  {
    CreatePods(*driver, "vt", o.pods, [](int i) {
      return PodOptions{.queue = "team-" + std::to_string(i % 4), .whole_gpus = 1};
    });
    const auto start = Clock::now();
    auto app = scheduler::SchedulerApp::Create(*sched_client, flags, app_options).value();
    if (Status s = app->Start(); !s.ok()) LOG(FATAL) << s.ToString();
    results.push_back(
        Watch(*driver, "vt", std::min(o.pods, capacity), start, "vtenant-scheduler, whole GPU"));
    app->Stop();
    DeletePods(*driver, "vt", o.pods);
  }
  {
    // The webhook must be up while sharing pods are created.
    auto app = scheduler::SchedulerApp::Create(*sched_client, flags, app_options).value();
    const auto start = Clock::now();
    if (Status s = app->Start(); !s.ok()) LOG(FATAL) << s.ToString();
    char frac[16];
    std::snprintf(frac, sizeof frac, "%g", o.fraction);
    const std::string f = frac;
    const int fit =
        std::min<int>(o.pods, static_cast<int>(capacity * static_cast<int>(1 / o.fraction)));
    std::thread creator([&] {
      CreatePods(*driver, "vtf", o.pods, [&](int i) {
        return PodOptions{.queue = "team-" + std::to_string(i % 4),
                          .annotations = {{kai::kGpuFractionAnnotation, f}}};
      });
    });
    results.push_back(Watch(*driver, "vtf", fit, start,
                            "vtenant-scheduler, gpu-fraction " + f + " (created while it runs)"));
    creator.join();
    app->Stop();
  }
  std::printf(
      "| scheduler, pods | bound | first bind (s) | last bind (s) | pods bound per second |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (const RoundResult& r : results)
    std::printf("| %s | %d | %.2f | %.2f | %.0f |\n", r.name.c_str(), r.bound, r.first_bind_s,
                r.last_bind_s, r.rate());
  (*cluster)->Stop();
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace vtenant::bench

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 1;
  google::InitGoogleLogging(argv[0]);
  return vtenant::bench::Main(vtenant::ParseFlagsOrExit<vtenant::bench::Options>(
      "bench_scheduler_e2e", argc, argv, vtenant::bench::ParseOptions, vtenant::bench::kUsage));
}

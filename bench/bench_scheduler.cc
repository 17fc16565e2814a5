// Scheduler-core benchmarks: full cycles at scale, reclaim with large jobs,
// fair-share division. Targets (issue 4) are measured here and recorded in
// bench/RESULTS.md, never asserted.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench/workload.h"
#include "scheduler-core/fair_share.h"
#include "scheduler-core/scheduler.h"

namespace vtenant::bench {
namespace {

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // Linux reports KiB
}

sched::Snapshot MustBuild(const Workload& w) {
  Result<sched::Snapshot> s = BuildSnapshot(w);
  if (!s.ok()) {
    fprintf(stderr, "bench: %s\n", s.status().ToString().c_str());
    std::abort();
  }
  return std::move(s).value();
}

void Report(benchmark::State& state, const sched::Decisions& d, const sched::Snapshot& s) {
  state.counters["binds"] = static_cast<double>(d.binds.size());
  state.counters["evictions"] = static_cast<double>(d.evictions.size());
  state.counters["moves"] = static_cast<double>(d.moves.size());
  state.counters["pending"] = static_cast<double>(d.pending.size());
  state.counters["pods"] = static_cast<double>(s.pods.size());
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}

// Times whole scheduling cycles (default options) on one snapshot. Callers
// build the snapshot into a variable of its own, so the workload's specs are
// freed before the loop and do not count in the peak memory reported.
void TimeCycles(benchmark::State& state, const sched::Snapshot& s,
                const sched::Options& options = {}) {
  sched::Decisions d;
  std::vector<sched::ActionTime> times;
  std::map<std::string, double> total_s;
  for (auto _ : state) {
    times.clear();
    d = sched::RunCycle(s, options, &times);
    benchmark::DoNotOptimize(d.binds.data());
    benchmark::DoNotOptimize(d.evictions.data());
    for (const sched::ActionTime& a : times) total_s[a.action] += a.seconds;
  }
  Report(state, d, s);
  // Where the cycle's time goes: each action's mean wall time per cycle.
  for (const auto& [action, seconds] : total_s)
    state.counters[action + "_ms"] = 1e3 * seconds / static_cast<double>(state.iterations());
}

// The full cycles' snapshot: arg 0 nodes (x 8 GPUs), arg 1 pods pending,
// 50 queues two levels deep; arg 2 percent of GPUs already held by running
// pods.
sched::Snapshot FullCycleSnapshot(const benchmark::State& state) {
  return MustBuild(Generate({.nodes = static_cast<int>(state.range(0)),
                             .pods = static_cast<int>(state.range(1)),
                             .running_fill = state.range(2) / 100.0}));
}

// One full cycle (allocate, consolidate, reclaim, preempt, stale gangs).
void BM_FullCycle(benchmark::State& state) {
  const sched::Snapshot s = FullCycleSnapshot(state);
  TimeCycles(state, s);
}

// The sizes both policies run at (nodes, pending pods, percent running);
// binpack's goes on to larger ones.
void FullCycleSizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"nodes", "pending", "fill%"})
      ->Args({100, 2000, 0})
      ->Args({1000, 20000, 0})
      ->Args({1000, 20000, 90})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}
BENCHMARK(BM_FullCycle)->Apply(FullCycleSizes)->Args({5000, 100000, 0})->Args({5000, 100000, 90});

// The same full cycle with the fgd placement rule (its workload: the
// snapshot's pods), against binpack's.
void BM_FullCycleFgd(benchmark::State& state) {
  const sched::Snapshot s = FullCycleSnapshot(state);
  sched::Options o;
  o.policy = sched::PlacementPolicy::kFgd;
  TimeCycles(state, s, o);
}
BENCHMARK(BM_FullCycleFgd)->Apply(FullCycleSizes);

// The full cycle where every pod carries the inter-pod rules serving
// workloads write: the pods fall in 200 services, each pod of its
// service's set with a required anti-affinity to it on the node (one
// replica a node); a third of them also spread over zones (DoNotSchedule,
// maxSkew 1) and a third prefer the racks their service is in. Running pods
// carry the same. What the rules cost where nothing is spared them.
void BM_FullCycleInterPod(benchmark::State& state) {
  const sched::Snapshot s = [&] {
    Workload w = Generate({.nodes = static_cast<int>(state.range(0)),
                           .pods = static_cast<int>(state.range(1)),
                           .running_fill = state.range(2) / 100.0});
    for (sched::NodeSpec& n : w.nodes) n.labels.emplace_back("kubernetes.io/hostname", n.name);
    for (size_t i = 0; i < w.pods.size(); ++i) {
      sched::PodSpec& p = w.pods[i];
      const std::string service = "service-" + std::to_string(i % 200);
      p.marks = {service};
      p.anti_affinity = {{service, "kubernetes.io/hostname"}};
      if (i % 3 == 0)
        p.spread = {{.key = service, .level = "topology.kubernetes.io/zone", .max_skew = 1}};
      else if (i % 3 == 1)
        p.preferred = {{.key = service, .level = "network.vtenant.io/rack", .weight = 10}};
    }
    return MustBuild(w);
  }();
  TimeCycles(state, s);
}
BENCHMARK(BM_FullCycleInterPod)
    ->ArgNames({"nodes", "pending", "fill%"})
    ->Args({1000, 20000, 0})
    ->Args({1000, 20000, 90})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Reclaim with large jobs: the cluster is full of one-GPU jobs of a queue
// far above its share; gangs of 8 x 8 GPUs of a starved queue reclaim.
void BM_ReclaimLargeJobs(benchmark::State& state) {
  const sched::Snapshot s = MustBuild(ReclaimScenario(static_cast<int>(state.range(0))));
  TimeCycles(state, s);
}
BENCHMARK(BM_ReclaimLargeJobs)
    ->ArgName("nodes")
    ->Arg(100)
    ->Arg(500)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_FairShare(benchmark::State& state) {
  QueueTree t = MakeQueueTree(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::vector<sched::ResourceVector> fair =
        sched::ComputeFairShare(t.queues, t.requested, t.capacity);
    benchmark::DoNotOptimize(fair.data());
  }
  state.counters["queues"] = static_cast<double>(t.queues.size());
}
BENCHMARK(BM_FairShare)
    ->ArgName("leaf_queues")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMicrosecond);

// Building the snapshot from named specs: what the program pays when it
// rebuilds from scratch rather than incrementally.
void BM_BuildSnapshot(benchmark::State& state) {
  WorkloadConfig c;
  c.nodes = static_cast<int>(state.range(0));
  c.pods = static_cast<int>(state.range(1));
  Workload w = Generate(c);
  for (auto _ : state) {
    Result<sched::Snapshot> s = BuildSnapshot(w);
    benchmark::DoNotOptimize(s.ok());
  }
}
BENCHMARK(BM_BuildSnapshot)
    ->ArgNames({"nodes", "pending"})
    ->Args({1000, 20000})
    ->Args({5000, 100000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vtenant::bench

BENCHMARK_MAIN();

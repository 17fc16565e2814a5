// vtenant-sim: replays a workload trace on a cluster through the scheduler
// core and prints a JSON summary.
//
//   vtenant-sim --nodes nodes.csv --pods pods.csv [--queues queues.yaml]
//               [--policy binpack|spread|best-fit|random-fit|fgd] [--no-deletions]
//               [--series series.csv] [--seed N] [--cycle-seconds N]
//               [--allocate-only] [--max-moves-per-job N]
//               [--max-moves-per-cycle N] [--each-pod-once]
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#include "scheduler-core/sim/in_order.h"
#include "scheduler-core/sim/replay.h"
#include "scheduler-core/sim/trace.h"

namespace {

using namespace vtenant;
using namespace vtenant::sched;

constexpr char kUsage[] =
    "usage: vtenant-sim --nodes FILE --pods FILE [--queues FILE]\n"
    "                   [--policy binpack|spread|best-fit|random-fit|fgd]\n"
    "                   [--no-deletions] [--series FILE] [--seed N]\n"
    "                   [--cycle-seconds N] [--allocate-only]\n"
    "                   [--max-moves-per-job N] [--max-moves-per-cycle N]\n"
    "                   [--each-pod-once] [--fgd-candidates N]\n"
    "  --each-pod-once: placement only, each pod tried once in arrival order\n"
    "                   (FGD's protocol); prints pods placed and GPUs allocated\n"
    "                   at the end and when arrived GPU demand reaches capacity\n";

int Fail(const Status& status) {
  std::cerr << "vtenant-sim: " << status.message() << "\n";
  return 2;
}

int Run(int argc, char** argv) {
  std::string nodes_path, pods_path, queues_path;
  sim::ReplayOptions options;
  bool each_pod_once = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&](std::string& dest) -> bool {
      if (i + 1 >= argc) return false;
      dest = argv[++i];
      return true;
    };
    std::string text;
    if (arg == "--nodes") {
      if (!value(nodes_path)) return Fail(InvalidArgument("--nodes needs a file"));
    } else if (arg == "--pods") {
      if (!value(pods_path)) return Fail(InvalidArgument("--pods needs a file"));
    } else if (arg == "--queues") {
      if (!value(queues_path)) return Fail(InvalidArgument("--queues needs a file"));
    } else if (arg == "--series") {
      if (!value(options.series_path)) return Fail(InvalidArgument("--series needs a file"));
    } else if (arg == "--policy") {
      if (!value(text)) return Fail(InvalidArgument("--policy needs a name"));
      Result<PlacementPolicy> policy = ParsePolicy(text);
      if (!policy.ok()) return Fail(policy.status());
      options.scheduler.policy = *policy;
    } else if (arg == "--seed") {
      if (!value(text)) return Fail(InvalidArgument("--seed needs a number"));
      options.scheduler.seed = std::stoull(text);
    } else if (arg == "--cycle-seconds") {
      if (!value(text)) return Fail(InvalidArgument("--cycle-seconds needs a number"));
      options.cycle_seconds = std::stoll(text);
      if (options.cycle_seconds < 1) return Fail(InvalidArgument("--cycle-seconds must be >= 1"));
    } else if (arg == "--max-moves-per-job") {
      // Consolidation bounds, to weigh restarts against stranded GPUs.
      if (!value(text)) return Fail(InvalidArgument("--max-moves-per-job needs a number"));
      options.scheduler.consolidation_max_moves_per_job = std::stoi(text);
    } else if (arg == "--max-moves-per-cycle") {
      if (!value(text)) return Fail(InvalidArgument("--max-moves-per-cycle needs a number"));
      options.scheduler.consolidation_max_moves_per_cycle = std::stoi(text);
    } else if (arg == "--allocate-only") {
      // Packing comparisons: placement alone, no evictions or moves.
      options.scheduler.consolidate = false;
      options.scheduler.reclaim = false;
      options.scheduler.preempt = false;
      options.scheduler.evict_stale_gangs = false;
    } else if (arg == "--fgd-candidates") {
      if (!value(text)) return Fail(InvalidArgument("--fgd-candidates needs a number"));
      options.scheduler.fgd_max_candidates = std::stoi(text);
      if (options.scheduler.fgd_max_candidates < 1)
        return Fail(InvalidArgument("--fgd-candidates must be >= 1"));
    } else if (arg == "--each-pod-once") {
      each_pod_once = true;
    } else if (arg == "--no-deletions") {
      options.deletions = false;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << kUsage;
      return Fail(InvalidArgument("unknown argument " + std::string(arg)));
    }
  }
  if (nodes_path.empty() || pods_path.empty()) {
    std::cerr << kUsage;
    return Fail(InvalidArgument("--nodes and --pods are required"));
  }
  sim::Trace trace;
  Result<std::vector<NodeSpec>> nodes = sim::LoadNodesCsv(nodes_path);
  if (!nodes.ok()) return Fail(nodes.status());
  trace.nodes = std::move(nodes).value();
  Result<std::vector<sim::PodRecord>> pods = sim::LoadPodsCsv(pods_path);
  if (!pods.ok()) return Fail(pods.status());
  trace.pods = std::move(pods).value();
  if (!queues_path.empty()) {
    Result<std::vector<QueueSpec>> queues = sim::LoadQueuesYaml(queues_path);
    if (!queues.ok()) return Fail(queues.status());
    trace.queues = std::move(queues).value();
  }
  if (Status checked = sim::CheckTrace(trace, pods_path); !checked.ok()) return Fail(checked);
  if (each_pod_once) {
    Result<sim::InOrderSummary> placed = sim::PlaceInOrder(trace, {options.scheduler, 1.0});
    if (!placed.ok()) return Fail(placed.status());
    std::cout << sim::InOrderJson(*placed) << "\n";
    return 0;
  }
  Result<sim::ReplaySummary> summary = sim::Replay(trace, options);
  if (!summary.ok()) return Fail(summary.status());
  std::cout << sim::SummaryJson(*summary) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }

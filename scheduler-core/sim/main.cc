// vtenant-sim: replays a workload trace on a cluster through the scheduler
// core and prints a JSON summary.
//
//   vtenant-sim --nodes nodes.csv --pods pods.csv [--queues queues.yaml]
//               [--policy binpack|spread|best-fit|random-fit|fgd] [--no-deletions]
//               [--series series.csv] [--seed N] [--cycle-seconds N]
//               [--allocate-only] [--max-moves-per-job N]
//               [--max-moves-per-cycle N] [--each-pod-once]
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "base/flags.h"
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

// What the command line asks for.
struct Flags {
  bool help = false;
  std::string nodes_path, pods_path, queues_path;
  bool each_pod_once = false;
  sim::ReplayOptions options;
};

// The flags (base/flags.h's syntax: `--nodes FILE` or `--nodes=FILE`), a
// table like every tool's: alike in form on purpose, the flags differ.
Result<Flags> ParseFlags(const std::vector<std::string>& args) {
  Flags flags;
  sim::ReplayOptions& options = flags.options;
  sched::Options& scheduler = options.scheduler;
  bool no_deletions = false;
  VT_ASSIGN_OR_RETURN(
      SplitCommandLine split,
      ApplyFlags(
          args, {TextFlag("nodes", &flags.nodes_path),
                 TextFlag("pods", &flags.pods_path),
                 TextFlag("queues", &flags.queues_path),
                 TextFlag("series", &options.series_path),
                 {"policy",
                  [&scheduler](const std::string& v) {
                    VT_ASSIGN_OR_RETURN(scheduler.policy, ParsePolicy(v));
                    return Status::Ok();
                  }},
                 {"allocate-only",
                  [&scheduler](const std::string& v) {
                    // Packing comparisons: placement alone, no evictions or moves.
                    const bool on = v == "true";
                    scheduler.consolidate = !on;
                    scheduler.reclaim = !on;
                    scheduler.preempt = !on;
                    scheduler.evict_stale_gangs = !on;
                    return Status::Ok();
                  },
                  /*is_switch=*/true},
                 SwitchFlag("each-pod-once", &flags.each_pod_once),
                 SwitchFlag("no-deletions", &no_deletions),
                 WholeNumberFlag("seed", &scheduler.seed, 0, INT64_MAX),
                 WholeNumberFlag("cycle-seconds", &options.cycle_seconds, 1, 86400),
                 // Consolidation bounds (to weigh restarts against stranded GPUs)
                 // and FGD's candidate count.
                 WholeNumberFlag("max-moves-per-job", &scheduler.consolidation_max_moves_per_job, 0,
                                 1000000),
                 WholeNumberFlag("max-moves-per-cycle",
                                 &scheduler.consolidation_max_moves_per_cycle, 0, 1000000),
                 WholeNumberFlag("fgd-candidates", &scheduler.fgd_max_candidates, 1, 1000000)}));
  flags.help = split.help;
  if (no_deletions) options.deletions = false;
  if (!flags.help && (flags.nodes_path.empty() || flags.pods_path.empty())) {
    return InvalidArgument("--nodes and --pods are required");
  }
  return flags;
}

int Fail(const Status& status) {
  std::cerr << "vtenant-sim: " << status.message() << "\n";
  return 1;
}

int Run(const Flags& flags) {
  sim::Trace trace;
  Result<std::vector<NodeSpec>> nodes = sim::LoadNodesCsv(flags.nodes_path);
  if (!nodes.ok()) return Fail(nodes.status());
  trace.nodes = std::move(nodes).value();
  Result<std::vector<sim::PodRecord>> pods = sim::LoadPodsCsv(flags.pods_path);
  if (!pods.ok()) return Fail(pods.status());
  trace.pods = std::move(pods).value();
  if (!flags.queues_path.empty()) {
    Result<std::vector<QueueSpec>> queues = sim::LoadQueuesYaml(flags.queues_path);
    if (!queues.ok()) return Fail(queues.status());
    trace.queues = std::move(queues).value();
  }
  if (Status checked = sim::CheckTrace(trace, flags.pods_path); !checked.ok()) return Fail(checked);
  if (flags.each_pod_once) {
    Result<sim::InOrderSummary> placed = sim::PlaceInOrder(trace, {flags.options.scheduler, 1.0});
    if (!placed.ok()) return Fail(placed.status());
    std::cout << sim::InOrderJson(*placed) << "\n";
    return 0;
  }
  Result<sim::ReplaySummary> summary = sim::Replay(trace, flags.options);
  if (!summary.ok()) return Fail(summary.status());
  std::cout << sim::SummaryJson(*summary) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return Run(ParseFlagsOrExit<Flags>("vtenant-sim", argc, argv, ParseFlags, kUsage));
}

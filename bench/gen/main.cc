// vtenant-gen: writes a synthetic cluster and workload for vtenant-sim.
//
//   vtenant-gen --out DIR [--nodes 1000] [--gpus-per-node 8] [--pods 20000]
//               [--queues 50] [--mix default|fractional] [--duration 86400]
//               [--mean-lifetime 3600] [--seed 1]
//
// Produces DIR/nodes.csv, DIR/pods.csv and DIR/queues.yaml.
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "base/flags.h"
#include "bench/workload.h"

namespace {

using namespace vtenant;

const char kUsage[] =
    "usage: vtenant-gen --out DIR [--nodes N] [--gpus-per-node N] [--pods N]\n"
    "                   [--queues N] [--mix default|fractional] [--duration S]\n"
    "                   [--mean-lifetime S] [--seed N]\n";

// What the command line asks for.
struct Flags {
  bool help = false;
  std::string out;
  bench::WorkloadConfig config;
};

// The flags (base/flags.h's syntax), a table like every tool's: alike in
// form on purpose, the flags differ. A generated cluster needs at least one
// node, GPU and queue.
Result<Flags> ParseFlags(const std::vector<std::string>& args) {
  Flags flags;
  bench::WorkloadConfig& c = flags.config;
  c.duration_s = 86400;
  c.mean_lifetime_s = 3600;
  VT_ASSIGN_OR_RETURN(
      SplitCommandLine split,
      ApplyFlags(args, {TextFlag("out", &flags.out),
                        WholeNumberFlag("nodes", &c.nodes, 1, INT32_MAX),
                        WholeNumberFlag("gpus-per-node", &c.gpus_per_node, 1, INT32_MAX),
                        WholeNumberFlag("pods", &c.pods, 0, INT32_MAX),
                        WholeNumberFlag("queues", &c.leaf_queues, 1, INT32_MAX),
                        {"mix",
                         [&c](const std::string& v) {
                           if (v == "fractional") {
                             c.mix = bench::JobMix::Fractional();
                           } else if (v != "default") {
                             return InvalidArgument("--mix is default or fractional");
                           }
                           return Status::Ok();
                         }},
                        WholeNumberFlag("duration", &c.duration_s, 0, INT32_MAX),
                        WholeNumberFlag("mean-lifetime", &c.mean_lifetime_s, 0, INT32_MAX),
                        WholeNumberFlag("seed", &c.seed, 0, INT32_MAX)}));
  flags.help = split.help;
  if (!flags.help && flags.out.empty()) return InvalidArgument("--out DIR is required");
  return flags;
}

int Fail(const std::string& message) {
  std::cerr << "vtenant-gen: " << message << "\n";
  return 1;
}

int Run(const Flags& flags) {
  const std::string& out = flags.out;
  const bench::WorkloadConfig& c = flags.config;
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return Fail(out + ": " + ec.message());
  bench::Workload w = bench::Generate(c);
  sched::sim::Trace t = bench::ToTrace(w);
  for (auto [status, what] :
       {std::pair{sched::sim::WriteNodesCsv(out + "/nodes.csv", t.nodes), "nodes"},
        std::pair{sched::sim::WritePodsCsv(out + "/pods.csv", t.pods), "pods"},
        std::pair{sched::sim::WriteQueuesYaml(out + "/queues.yaml", t.queues), "queues"}}) {
    if (!status.ok()) return Fail(std::string(what) + ": " + status.message());
  }
  std::cerr << "vtenant-gen: " << t.nodes.size() << " nodes, " << t.pods.size() << " pods, "
            << t.queues.size() << " queues in " << out << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return Run(ParseFlagsOrExit<Flags>("vtenant-gen", argc, argv, ParseFlags, kUsage));
}

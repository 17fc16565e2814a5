// vtenant-gen: writes a synthetic cluster and workload for vtenant-sim.
//
//   vtenant-gen --out DIR [--nodes 1000] [--gpus-per-node 8] [--pods 20000]
//               [--queues 50] [--mix default|fractional] [--duration 86400]
//               [--mean-lifetime 3600] [--seed 1]
//
// Produces DIR/nodes.csv, DIR/pods.csv and DIR/queues.yaml.
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>

#include "bench/workload.h"

namespace {

using namespace vtenant;

int Fail(const std::string& message) {
  std::cerr << "vtenant-gen: " << message << "\n";
  return 2;
}

int Run(int argc, char** argv) {
  bench::WorkloadConfig c;
  c.duration_s = 86400;
  c.mean_lifetime_s = 3600;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "usage: vtenant-gen --out DIR [--nodes N] [--gpus-per-node N] [--pods N]\n"
                   "                   [--queues N] [--mix default|fractional] [--duration S]\n"
                   "                   [--mean-lifetime S] [--seed N]\n";
      return 0;
    }
    if (i + 1 >= argc) return Fail(std::string(arg) + " needs a value");
    std::string value = argv[++i];
    auto number = [&](int64_t& dest) -> bool {
      try {
        size_t used = 0;
        dest = std::stoll(value, &used);
        return used == value.size() && dest >= 0;
      } catch (...) {
        return false;
      }
    };
    int64_t n = 0;
    bool ok = true;
    if (arg == "--out") {
      out = value;
    } else if (arg == "--mix") {
      if (value == "fractional")
        c.mix = bench::JobMix::Fractional();
      else if (value != "default")
        return Fail("--mix is default or fractional");
    } else if ((ok = number(n))) {
      if (arg == "--nodes")
        c.nodes = static_cast<int>(n);
      else if (arg == "--gpus-per-node")
        c.gpus_per_node = static_cast<int>(n);
      else if (arg == "--pods")
        c.pods = static_cast<int>(n);
      else if (arg == "--queues")
        c.leaf_queues = static_cast<int>(std::max<int64_t>(1, n));
      else if (arg == "--duration")
        c.duration_s = n;
      else if (arg == "--mean-lifetime")
        c.mean_lifetime_s = n;
      else if (arg == "--seed")
        c.seed = static_cast<uint64_t>(n);
      else
        return Fail("unknown argument " + std::string(arg));
    }
    if (!ok) return Fail(std::string(arg) + " needs a non-negative whole number, got " + value);
  }
  if (out.empty()) return Fail("--out DIR is required");
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

int main(int argc, char** argv) { return Run(argc, argv); }

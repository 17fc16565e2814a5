// The busy-cluster cycle keeps its decisions while it gets faster: seeded
// workloads (a cluster mostly held by running pods, reclaim and preempt at
// work) are run through RunCycle and every decision is compared with a
// record made by the code before the speed work (bench/testdata/
// busy_decisions.txt: per workload the decision counts and a 64-bit
// FNV-1a hash of the rendered decisions).
//
// To look at a difference, set VTENANT_DECISIONS_DUMP=<dir>: each workload's
// decisions are written there as text. To re-record after a change that is
// meant to change decisions, set VTENANT_DECISIONS_RECORD=<file>.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "bench/workload.h"
#include "localenv/testing/source_tree.h"
#include "scheduler-core/scheduler.h"

namespace vtenant::bench {
namespace {

struct Case {
  std::string name;
  WorkloadConfig config;
  bool reclaim_scenario = false;
  sched::PlacementPolicy policy = sched::PlacementPolicy::kBinpack;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (uint64_t seed : {1, 2, 3}) {
    for (int fill : {90, 70}) {
      for (int nodes : {100, 400}) {
        Case c;
        c.config.nodes = nodes;
        c.config.pods = nodes * 20;
        c.config.running_fill = fill / 100.0;
        c.config.seed = seed;
        c.name = "busy-n" + std::to_string(nodes) + "-f" + std::to_string(fill) + "-s" +
                 std::to_string(seed);
        cases.push_back(c);
      }
    }
  }
  // Fewer queues: more victims per queue, more jobs per queue to memoize.
  for (uint64_t seed : {4, 5}) {
    Case c;
    c.config.nodes = 300;
    c.config.pods = 6000;
    c.config.leaf_queues = 10;
    c.config.running_fill = 0.9;
    c.config.seed = seed;
    c.name = "few-queues-n300-s" + std::to_string(seed);
    cases.push_back(c);
  }
  for (sched::PlacementPolicy p : {sched::PlacementPolicy::kFgd, sched::PlacementPolicy::kSpread}) {
    Case c;
    c.config.nodes = 200;
    c.config.pods = 4000;
    c.config.running_fill = 0.9;
    c.config.seed = 6;
    c.policy = p;
    c.name = std::string("policy-") + std::string(sched::PolicyName(p)) + "-n200";
    cases.push_back(c);
  }
  // The benchmark's busy cycle at 1,000 nodes; with VTENANT_DECISIONS_LARGE
  // set also at 5,000 (seconds before the speed work, so not by default).
  std::vector<int> large = {1000};
  if (std::getenv("VTENANT_DECISIONS_LARGE")) large.push_back(5000);
  for (int nodes : large) {
    Case c;
    c.config.nodes = nodes;
    c.config.pods = nodes * 20;
    c.config.running_fill = 0.9;
    c.name = "bench-full-cycle-n" + std::to_string(nodes) + "-f90";
    cases.push_back(c);
  }
  for (int nodes : {100, 300}) {
    Case c;
    c.config.nodes = nodes;
    c.reclaim_scenario = true;
    c.name = "reclaim-large-jobs-n" + std::to_string(nodes);
    cases.push_back(c);
  }
  return cases;
}

std::string Render(const sched::Snapshot& s, const sched::Decisions& d) {
  std::ostringstream out;
  for (const sched::Bind& b : d.binds)
    out << "bind " << s.pods[b.pod].name << " " << b.allocation.node << " "
        << b.allocation.device_mask << " " << b.allocation.portion << "\n";
  for (const sched::Eviction& e : d.evictions)
    out << "evict " << s.pods[e.pod].name << " " << d.MessageOf(e) << "\n";
  for (const sched::Move& m : d.moves)
    out << "move " << s.pods[m.pod].name << " " << m.to.node << " " << m.to.device_mask << "\n";
  for (const sched::Pending& p : d.pending)
    out << "pending " << s.pods[p.pod].name << " " << d.ReasonOf(p) << "\n";
  return out.str();
}

uint64_t Fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string Summary(const sched::Decisions& d, const std::string& rendered) {
  std::ostringstream out;
  out << "binds=" << d.binds.size() << " evictions=" << d.evictions.size()
      << " moves=" << d.moves.size() << " pending=" << d.pending.size() << " hash=" << std::hex
      << Fnv1a(rendered);
  return out.str();
}

std::map<std::string, std::string> ReadRecord(const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

TEST(BusyDecisionsTest, SameDecisionsAsRecorded) {
  const char* record_to = std::getenv("VTENANT_DECISIONS_RECORD");
  const char* dump_dir = std::getenv("VTENANT_DECISIONS_DUMP");
  const std::map<std::string, std::string> recorded =
      ReadRecord(localenv::SourcePath("bench/testdata/busy_decisions.txt"));
  if (!record_to) {
    ASSERT_FALSE(recorded.empty()) << "no recorded decisions";
  }
  std::ostringstream record;
  for (const Case& c : Cases()) {
    const Workload w = c.reclaim_scenario ? ReclaimScenario(c.config.nodes) : Generate(c.config);
    Result<sched::Snapshot> s = BuildSnapshot(w);
    ASSERT_TRUE(s.ok()) << c.name << ": " << s.status().ToString();
    sched::Options o;
    o.policy = c.policy;
    const sched::Decisions d = sched::RunCycle(*s, o);
    const std::string rendered = Render(*s, d);
    const std::string summary = Summary(d, rendered);
    record << c.name << " " << summary << "\n";
    if (dump_dir) std::ofstream(std::string(dump_dir) + "/" + c.name + ".txt") << rendered;
    // A workload that does nothing would compare equal for any code.
    EXPECT_GT(d.binds.size(), 0u) << c.name;
    if (record_to) continue;
    auto it = recorded.find(c.name);
    if (it == recorded.end() && c.config.nodes >= 5000) continue;  // recorded only on request
    ASSERT_NE(it, recorded.end()) << c.name << " was not recorded";
    EXPECT_EQ(summary, it->second) << c.name;
  }
  if (record_to) std::ofstream(record_to) << record.str();
}

}  // namespace
}  // namespace vtenant::bench

// Same snapshot in, same decisions out; and the decisions obey capacity.
#include <gtest/gtest.h>

#include <random>

#include "scheduler-core/testing/test_support.h"

namespace vtenant::sched {
namespace {

using namespace testing;

// A busy mixed world from a fixed seed: fractions, memory, whole GPUs,
// gangs, running pods, several queues.
Snapshot MixedWorld(uint32_t seed) {
  std::mt19937 rng(seed);
  SnapshotBuilder b = Cluster({{"org-a", 8000}, {"org-b", 8000}}, {}, 100000);
  const char* leaves[] = {"a1", "a2", "b1", "b2"};
  for (int i = 0; i < 4; ++i)
    b.AddQueue(GpuQueue(leaves[i], i < 2 ? "org-a" : "org-b", 2000, kUnlimited, 1 + i));
  for (int n = 0; n < 8; ++n) b.AddNode(GpuNode("n" + std::to_string(n), 4));
  for (int i = 0; i < 120; ++i) {
    std::string queue = leaves[rng() % 4];
    std::string name = "p" + std::to_string(i);
    PodSpec p;
    switch (rng() % 4) {
      case 0:
        p = FractionPod(name, queue, 250 * (1 + rng() % 3));
        break;
      case 1:
        p = MemoryPod(name, queue, 4000 * (1 + rng() % 4));
        break;
      case 2:
        p = WholeGpuPod(name, queue, 1);
        break;
      default: {
        std::string g = "g" + std::to_string(i);
        b.AddGroup({.name = g, .queue = queue, .min_member = 2, .priority = int(rng() % 3)});
        for (int k = 0; k < 2; ++k) {
          PodSpec m = WholeGpuPod(g + "-" + std::to_string(k), "", 2);
          m.group = g;
          m.creation_time = i;
          b.AddPod(m);
        }
        continue;
      }
    }
    p.priority = rng() % 3;
    p.creation_time = i;
    b.AddPod(p);
  }
  return MustBuild(b);
}

std::string Render(const Snapshot& s, const Decisions& d) {
  std::string out;
  for (const Bind& b : d.binds)
    out += "bind " + s.pods[b.pod].name + " " + std::to_string(b.allocation.node) + " " +
           std::to_string(b.allocation.device_mask) + " " + std::to_string(b.allocation.portion) +
           "\n";
  for (const Eviction& e : d.evictions)
    out += "evict " + s.pods[e.pod].name + " " + std::string(d.MessageOf(e)) + "\n";
  for (const Move& m : d.moves) out += "move " + s.pods[m.pod].name + "\n";
  for (const Pending& p : d.pending)
    out += "pending " + s.pods[p.pod].name + " " + d.ReasonOf(p) + "\n";
  return out;
}

TEST(DeterminismTest, SameSnapshotSameDecisions) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    Snapshot s = MixedWorld(seed);
    for (PlacementPolicy policy : {PlacementPolicy::kBinpack, PlacementPolicy::kSpread,
                                   PlacementPolicy::kBestFit, PlacementPolicy::kRandomFit}) {
      Options o;
      o.policy = policy;
      std::string first = Render(s, RunCycle(s, o));
      EXPECT_EQ(first, Render(s, RunCycle(s, o))) << seed << " " << PolicyName(policy);
      EXPECT_NE(first.find("bind"), std::string::npos);
    }
  }
}

TEST(DeterminismTest, NoDeviceOrNodeIsOvercommitted) {
  for (uint32_t seed : {4u, 5u, 6u}) {
    Snapshot s = MixedWorld(seed);
    Decisions d = RunCycle(s);
    // Rebuild usage from scratch: running pods that stayed, plus binds.
    std::vector<Milli> used(s.devices.size(), 0);
    std::vector<uint8_t> whole(s.devices.size(), 0), shared(s.devices.size(), 0);
    std::vector<uint8_t> gone(s.pods.size(), 0);
    for (const Eviction& e : d.evictions) gone[e.pod] = 1;
    auto add = [&](PodId p, const Allocation& a) {
      for (int i : DeviceIndices(a)) {
        DeviceId dev = s.nodes[a.node].first_device + i;
        used[dev] += a.portion;
        (s.pods[p].request.whole_gpus > 0 ? whole : shared)[dev] = 1;
      }
    };
    std::vector<Allocation> final_alloc(s.pods.size());
    for (PodId p = 0; p < s.pods.size(); ++p)
      if (s.pods[p].phase == PodPhase::kRunning && !gone[p]) final_alloc[p] = s.pods[p].allocation;
    for (const Move& m : d.moves) final_alloc[m.pod] = m.to;
    for (const Bind& b : d.binds) final_alloc[b.pod] = b.allocation;
    for (PodId p = 0; p < s.pods.size(); ++p)
      if (final_alloc[p].node != kNone) add(p, final_alloc[p]);
    for (DeviceId dev = 0; dev < s.devices.size(); ++dev) {
      EXPECT_LE(used[dev], kMilliPerGpu) << "device " << dev << " seed " << seed;
      EXPECT_FALSE(whole[dev] && shared[dev]) << "device " << dev << " seed " << seed;
    }
    // Gangs are whole or absent.
    for (GroupId g = 0; g < s.groups.size(); ++g) {
      int placed = 0;
      for (PodId p : s.groups[g].pods) placed += final_alloc[p].node != kNone;
      EXPECT_TRUE(placed == 0 || placed >= s.groups[g].min_member) << s.groups[g].name;
    }
  }
}

}  // namespace
}  // namespace vtenant::sched

// The trimmer against the process's own heap: what a burst frees comes back
// to the system while the manager runs.
#include "kube/heap_trimmer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "base/eventually.h"
#include "kube/testing/fake_client.h"

namespace vtenant::kube {
namespace {

// Resident bytes of this process, from /proc/self/statm.
long ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

constexpr size_t kBlock = 512;          // below the mmap threshold: heap, not mmap
constexpr size_t kBlocks = 256 * 1024;  // 128 MiB
constexpr long kFreed = 64L << 20;      // what must come back at least

TEST(HeapTrimmerTest, FreedHeapGoesBackToTheSystemWhileTheManagerRuns) {
  // A burst on a thread of its own (its own arena, as the informers' are):
  // every block freed but the last, which pins the arena's top so that
  // free() alone cannot shrink it.
  std::unique_ptr<char[]> pinned;
  std::thread burst([&] {
    std::vector<char*> blocks(kBlocks);
    for (char*& b : blocks) {
      b = new char[kBlock];
      std::fill(b, b + kBlock, 'x');  // touched: resident
    }
    for (size_t i = 0; i + 1 < kBlocks; ++i) delete[] blocks[i];
    pinned.reset(blocks.back());
  });
  burst.join();
  const long after_burst = ResidentBytes();

  FakeClient client;
  Registry registry;
  auto manager =
      Manager::Create(client, {.name = "trim", .handle_signals = false, .registry = &registry});
  ASSERT_TRUE(manager.ok()) << manager.status().ToString();
  AddHeapTrimmer(**manager, std::chrono::milliseconds(50));
  std::thread running([&] { EXPECT_TRUE((*manager)->Run().ok()); });
  EXPECT_TRUE(Eventually([&] { return ResidentBytes() < after_burst - kFreed; }))
      << "resident " << ResidentBytes() << " bytes, " << after_burst << " after the burst";
  (*manager)->Stop();
  running.join();
}

}  // namespace
}  // namespace vtenant::kube

#include "kube/process_metrics.h"

#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace vtenant::kube {
namespace {

// The value of unlabelled `name` on a /metrics page, or -1.
double Value(const std::string& page, const std::string& name) {
  const std::string line_start = "\n" + name + " ";
  const size_t at = page.find(line_start);
  if (at == std::string::npos) return -1;
  return std::strtod(page.c_str() + at + line_start.size(), nullptr);
}

TEST(ProcessMetricsTest, TheProcessFiguresAreReadAtEachScrape) {
  Registry registry;
  ASSERT_TRUE(RegisterProcessMetrics(registry).ok());
  ASSERT_TRUE(RegisterProcessMetrics(registry).ok());  // a second component: no change
  const std::string page = registry.Render();
  EXPECT_GT(Value(page, "process_resident_memory_bytes"), 1 << 20);
  EXPECT_GE(Value(page, "process_virtual_memory_bytes"),
            Value(page, "process_resident_memory_bytes"));
  EXPECT_GE(Value(page, "process_open_fds"), 3);  // stdin, stdout, stderr at least
  EXPECT_GE(Value(page, "process_max_fds"), Value(page, "process_open_fds"));
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const double started = Value(page, "process_start_time_seconds");
  EXPECT_LE(started, now + 1);
  EXPECT_GT(started, now - 3600);  // this test started moments ago
  EXPECT_NE(page.find("# TYPE process_cpu_seconds_total counter"), std::string::npos);
  EXPECT_GE(Value(page, "process_cpu_seconds_total"), 0);
  EXPECT_GE(Value(page, "vtenant_malloc_free_bytes"), 0);
  // CPU time used shows (50 ms of it, several of the kernel's ticks), and
  // the counter never goes down.
  auto cpu_now = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
  };
  const double until = cpu_now() + 0.05;
  volatile uint64_t spin = 0;
  while (cpu_now() < until) spin = spin + 1;
  const std::string later = registry.Render();
  EXPECT_GT(Value(later, "process_cpu_seconds_total"), Value(page, "process_cpu_seconds_total"));
}

TEST(ProcessMetricsTest, TheHeapInUseFollowsWhatTheProgramHolds) {
  Registry registry;
  ASSERT_TRUE(RegisterProcessMetrics(registry).ok());
  const double before = Value(registry.Render(), "vtenant_malloc_in_use_bytes");
  ASSERT_GT(before, 0);
  constexpr size_t kHeld = 64u << 20;
  std::unique_ptr<char[]> held(new char[kHeld]);
  std::memset(held.get(), 1, kHeld);
  const double holding = Value(registry.Render(), "vtenant_malloc_in_use_bytes");
  EXPECT_GE(holding - before, static_cast<double>(kHeld));
  held.reset();
  EXPECT_LT(Value(registry.Render(), "vtenant_malloc_in_use_bytes"), holding - kHeld / 2);
}

}  // namespace
}  // namespace vtenant::kube

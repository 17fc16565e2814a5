// Resource vectors in integer units, so sums never drift.
//
// GPU is counted in milli-GPUs (one device = 1000, 0.33 of a device = 330),
// CPU in millicores and memory in bytes. Every quantity the scheduler adds or
// compares is an int64_t in these units; nothing is a float.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace vtenant::sched {

using Milli = int64_t;

inline constexpr Milli kMilliPerGpu = 1000;

// KAI's "-1": no limit (for a limit) or everything (for a quota).
inline constexpr int64_t kUnlimited = -1;

enum Resource : int { kGpu = 0, kCpu = 1, kMemory = 2 };
inline constexpr int kNumResources = 3;
inline constexpr std::array<Resource, kNumResources> kAllResources = {kGpu, kCpu, kMemory};

std::string_view ResourceName(Resource r);

// gpu (milli-GPU), cpu (millicores), memory (bytes), indexed by Resource.
struct ResourceVector {
  std::array<int64_t, kNumResources> v{};

  int64_t& operator[](Resource r) { return v[r]; }
  int64_t operator[](Resource r) const { return v[r]; }

  ResourceVector& operator+=(const ResourceVector& o) {
    for (int i = 0; i < kNumResources; ++i) v[i] += o.v[i];
    return *this;
  }
  ResourceVector& operator-=(const ResourceVector& o) {
    for (int i = 0; i < kNumResources; ++i) v[i] -= o.v[i];
    return *this;
  }
  friend ResourceVector operator+(ResourceVector a, const ResourceVector& b) { return a += b; }
  friend ResourceVector operator-(ResourceVector a, const ResourceVector& b) { return a -= b; }
  // Spelled out rather than defaulted: the defaulted comparison loops over
  // the array, and allocation compares a few vectors for every job.
  bool operator==(const ResourceVector& o) const {
    static_assert(kNumResources == 3);
    return v[0] == o.v[0] && v[1] == o.v[1] && v[2] == o.v[2];
  }
  bool IsZero() const { return v[0] == 0 && v[1] == 0 && v[2] == 0; }
};

inline ResourceVector MakeResources(Milli gpu, int64_t cpu_milli, int64_t memory_bytes) {
  ResourceVector r;
  r[kGpu] = gpu;
  r[kCpu] = cpu_milli;
  r[kMemory] = memory_bytes;
  return r;
}

// GPU and CPU in thousandths ("330m", "2000m"), memory in MiB when it is
// whole MiB ("512Mi") and in bytes otherwise ("1000B"), kUnlimited as
// "unlimited". Human text for pending reasons and logs, never parsed back.
std::string FormatAmount(Resource r, int64_t amount);

}  // namespace vtenant::sched

#include "scheduler-core/resources.h"

namespace vtenant::sched {

std::string_view ResourceName(Resource r) {
  switch (r) {
    case kGpu:
      return "gpu";
    case kCpu:
      return "cpu";
    case kMemory:
      return "memory";
  }
  return "unknown";
}

std::string FormatAmount(Resource r, int64_t amount) {
  if (amount == kUnlimited) return "unlimited";
  switch (r) {
    case kGpu:
    case kCpu:
      return std::to_string(amount) + "m";
    case kMemory: {
      // MiB keeps the numbers short; exact bytes rarely help a person.
      constexpr int64_t kMiB = 1024 * 1024;
      if (amount % kMiB == 0) return std::to_string(amount / kMiB) + "Mi";
      return std::to_string(amount) + "B";
    }
  }
  return std::to_string(amount);
}

}  // namespace vtenant::sched

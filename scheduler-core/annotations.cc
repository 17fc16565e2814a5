#include "scheduler-core/annotations.h"

#include <chrono>
#include <string>

#include "base/decimal.h"
#include "base/duration.h"

namespace vtenant::sched {

Result<int64_t> ParseMilli(std::string_view text, std::string_view field) {
  return ParseDecimalMilli(text, field);
}

namespace {

constexpr int64_t kMegabyte = 1000 * 1000;

// `text` read by ParseMilli; -1 gives kUnlimited, another negative value
// an error.
Result<int64_t> NonNegativeOrUnlimitedMilli(std::string_view text, std::string_view field) {
  VT_ASSIGN_OR_RETURN(int64_t milli, ParseMilli(text, field));
  if (milli == -1000) return kUnlimited;
  if (milli < 0) {
    return InvalidArgument(std::string(field) + " " + std::string(text) +
                           " is negative (only -1, unlimited, is)");
  }
  return milli;
}

}  // namespace

Result<int64_t> ParseQueueAmount(std::string_view text, Resource r, std::string_view field) {
  VT_ASSIGN_OR_RETURN(int64_t milli, NonNegativeOrUnlimitedMilli(text, field));
  if (milli == kUnlimited) return kUnlimited;
  switch (r) {
    case kGpu:
      return milli;  // devices -> milli-GPU
    case kCpu:
      return (milli + 500) / 1000;  // millicores as written
    case kMemory:
      return (milli * kMegabyte + 500) / 1000;  // megabytes -> bytes
  }
  return InvalidArgument(std::string(field) + ": no such resource");
}

Result<int64_t> ParseQueueWeight(std::string_view text, std::string_view field) {
  VT_ASSIGN_OR_RETURN(int64_t milli, NonNegativeOrUnlimitedMilli(text, field));
  return milli == kUnlimited ? 1000 : milli;
}

Result<int64_t> ParseMinRuntimeSeconds(std::string_view text) {
  VT_ASSIGN_OR_RETURN(std::chrono::nanoseconds d, ParseDuration(text));
  if (d.count() < 0) return InvalidArgument("duration \"" + std::string(text) + "\" is negative");
  return CeilSeconds(d);
}

}  // namespace vtenant::sched

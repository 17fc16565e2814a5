#include "scheduler-core/annotations.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "base/decimal.h"

namespace vtenant::sched {
namespace {

std::string Quoted(std::string_view field, std::string_view text) {
  return std::string(field) + " \"" + std::string(text) + "\"";
}

Result<int64_t> ParsePositiveInt(std::string_view text, std::string_view field, int64_t max) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    return InvalidArgument(Quoted(field, text) + " is not a whole number");
  if (value <= 0) return InvalidArgument(Quoted(field, text) + " must be positive");
  if (value > max) return InvalidArgument(Quoted(field, text) + " exceeds " + std::to_string(max));
  return value;
}

}  // namespace

Result<int64_t> ParseMilli(std::string_view text, std::string_view field) {
  return ParseDecimalMilli(text, field);
}

Result<Milli> ParseGpuFraction(std::string_view text) {
  VT_ASSIGN_OR_RETURN(int64_t milli, ParseMilli(text, "gpu-fraction"));
  if (milli <= 0 || milli > kMilliPerGpu)
    return InvalidArgument(Quoted("gpu-fraction", text) +
                           " must be more than 0 and at most 1 (a share of one device; use "
                           "nvidia.com/gpu for whole devices)");
  return milli;
}

Result<int32_t> ParseGpuMemoryMib(std::string_view text) {
  VT_ASSIGN_OR_RETURN(int64_t mib, ParsePositiveInt(text, "gpu-memory", 1 << 24));
  return static_cast<int32_t>(mib);
}

Result<int32_t> ParseNumDevices(std::string_view text) {
  VT_ASSIGN_OR_RETURN(int64_t n, ParsePositiveInt(text, "gpu-fraction-num-devices", 64));
  return static_cast<int32_t>(n);
}

}  // namespace vtenant::sched

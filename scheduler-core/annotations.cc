#include "scheduler-core/annotations.h"

#include <chrono>
#include <string>

#include "base/decimal.h"
#include "base/duration.h"

namespace vtenant::sched {

Result<int64_t> ParseMilli(std::string_view text, std::string_view field) {
  return ParseDecimalMilli(text, field);
}

Result<int64_t> ParseMinRuntimeSeconds(std::string_view text) {
  VT_ASSIGN_OR_RETURN(std::chrono::nanoseconds d, ParseDuration(text));
  if (d.count() < 0) return InvalidArgument("duration \"" + std::string(text) + "\" is negative");
  return CeilSeconds(d);
}

}  // namespace vtenant::sched

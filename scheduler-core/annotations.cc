#include "scheduler-core/annotations.h"

#include "base/decimal.h"

namespace vtenant::sched {

Result<int64_t> ParseMilli(std::string_view text, std::string_view field) {
  return ParseDecimalMilli(text, field);
}

}  // namespace vtenant::sched

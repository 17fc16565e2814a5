#include "kai/min_member.h"

#include <string>

#include "kai/names.h"

namespace vtenant::kai {

Result<int32_t> ParseBatchMinMember(std::string_view text) {
  int64_t value = 0;
  bool digits = !text.empty() && text.size() <= 10;
  for (char c : text) {
    if (c < '0' || c > '9') {
      digits = false;
      break;
    }
    value = value * 10 + (c - '0');
  }
  if (!digits || value < 1 || value > kMaxMinMember) {
    return InvalidArgument(std::string("annotation ") + kBatchMinMemberAnnotation + " \"" +
                           std::string(text) + "\" must be a whole number from 1 to " +
                           std::to_string(kMaxMinMember) +
                           " (how many of the workload's pods start together)");
  }
  return static_cast<int32_t>(value);
}

}  // namespace vtenant::kai

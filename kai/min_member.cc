#include "kai/min_member.h"

#include <string>

#include "kai/names.h"
#include "kai/object_fields.h"

namespace vtenant::kai {

Result<int32_t> ParseBatchMinMember(std::string_view text) {
  const std::optional<int64_t> value = WholeNumber(text);
  if (!value || *value < 1 || *value > kMaxMinMember) {
    return InvalidArgument(std::string("annotation ") + kBatchMinMemberAnnotation + " \"" +
                           std::string(text) + "\" must be a whole number from 1 to " +
                           std::to_string(kMaxMinMember) +
                           " (how many of the workload's pods start together)");
  }
  return static_cast<int32_t>(*value);
}

}  // namespace vtenant::kai

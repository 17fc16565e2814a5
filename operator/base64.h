// Base64 for Secret data, which the API carries encoded.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace vtenant::op {

std::string EncodeBase64(std::string_view bytes);

// InvalidArgument for text that is not standard, padded base64.
Result<std::string> DecodeBase64(std::string_view text);

}  // namespace vtenant::op

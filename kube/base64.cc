#include "kube/base64.h"

#include <cpprest/asyncrt_utils.h>

#include <vector>

namespace vtenant::kube {

std::string EncodeBase64(std::string_view bytes) {
  return utility::conversions::to_base64(std::vector<unsigned char>(bytes.begin(), bytes.end()));
}

Result<std::string> DecodeBase64(std::string_view text, std::string_view what) {
  try {
    std::vector<unsigned char> bytes = utility::conversions::from_base64(std::string(text));
    return std::string(bytes.begin(), bytes.end());
  } catch (const std::exception&) {
    return InvalidArgument(std::string(what) + " is not valid base64");
  }
}

}  // namespace vtenant::kube

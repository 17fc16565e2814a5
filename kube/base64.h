// Base64 as Kubernetes uses it: Secret data and kubeconfig *-data fields
// (standard alphabet, padded).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace vtenant::kube {

// `bytes` in the standard alphabet, padded to a multiple of four characters.
std::string EncodeBase64(std::string_view bytes);

// InvalidArgument naming `what` (e.g. "certificate-authority-data") when
// `text` is not valid base64.
Result<std::string> DecodeBase64(std::string_view text, std::string_view what = "value");

}  // namespace vtenant::kube

// Turning an API server's error answer into a Status.
#pragma once

#include <string_view>

#include "base/status.h"

namespace vtenant::kube {

// Maps an HTTP status code and the body of a non-2xx answer (usually a
// metav1.Status object) to a Status whose code follows the Status reason and
// whose message is the server's message.
Status ApiError(int http_status, std::string_view body, std::string_view what);

// Whether retrying the same request may succeed (and is safe to try again):
// throttling, timeouts and unavailable servers.
bool IsRetryable(const Status& status);

}  // namespace vtenant::kube

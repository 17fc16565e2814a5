// Turning an API server's error answer into a Status.
#pragma once

#include <string_view>

#include "base/status.h"

namespace vtenant::kube {

// Maps an HTTP status code and the body of a non-2xx answer to a Status.
// When the body is a metav1.Status object, the code follows its reason (the
// HTTP status where the reason is one this does not know) and the message is
// the server's, or "<what>: HTTP <code>" when it has none. Any other body
// gives the code of the HTTP status and "<what>: HTTP <code>: <body>", the
// body cut at 500 bytes and made one line. An HTTP status without a code of
// its own (500, 502, ...) is Internal.
Status ApiError(int http_status, std::string_view body, std::string_view what);

// Whether retrying the same request may succeed (and is safe to try again):
// throttling, timeouts and unavailable servers.
bool IsRetryable(const Status& status);

}  // namespace vtenant::kube

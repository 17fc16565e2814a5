// HttpTransport: HTTPS requests to one API server over cpprestsdk.
//
// This is the only place that knows about cpprestsdk's client: everything
// above it speaks paths, bodies and Status. cpprestsdk reports failures by
// throwing; they are caught here and turned into Unavailable/Timeout.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/cancellation.h"
#include "kube/rest_config.h"

namespace vtenant::kube {

struct HttpResponse {
  int status_code = 0;
  std::string body;
  std::string content_type;
};

// Receives a streamed response body chunk by chunk as it arrives; returns
// false to stop reading.
using ChunkHandler = std::function<bool(std::string_view chunk)>;

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  // Sends one request (`path_and_query` starts with '/') and reads the whole body.
  // A non-2xx answer is still a response; only transport failures are errors.
  virtual Result<HttpResponse> Send(std::string_view method, std::string_view path_and_query,
                                    std::string_view body = {},
                                    std::string_view content_type = {}) = 0;

  // Sends a GET and hands the body to `on_chunk` as it arrives, until the
  // server ends it, `on_chunk` returns false or `cancel` fires. Returns the
  // status code; for a non-2xx answer the body goes to `error_body` instead.
  virtual Result<int> Stream(std::string_view path_and_query, const ChunkHandler& on_chunk,
                             std::string* error_body, Cancellation* cancel) = 0;
};

// Makes a transport for `config`. Fails when the PEM material is unusable.
Result<std::unique_ptr<HttpTransport>> NewHttpTransport(const RestConfig& config);

}  // namespace vtenant::kube

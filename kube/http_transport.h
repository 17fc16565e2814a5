// HttpTransport: HTTP(S) requests to one API server.
//
// NewHttpTransport makes the real one, over cpprestsdk; it is the programs'
// only place that knows about cpprestsdk's client but one (etcd's JSON
// gateway wants its token bare: localenv/etcd_admin.cc): everything above it
// speaks paths, bodies and Status. cpprestsdk reports failures by throwing; every
// exception is caught inside it and comes back as a Status. Tests put a fake
// (kube/testing/fake_transport.h) under RestClient instead. Every TLS
// connection trusts the config's CA alone, or the system roots when it has
// none (kube/tls_trust.h: built once, never parsed per connection), and
// checks the server's name, unless the config says insecure_skip_tls_verify.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/call_options.h"
#include "kube/cancellation.h"
#include "kube/rest_config.h"

namespace vtenant::kube {

struct HttpResponse {
  int status_code = 0;
  std::string body;
  std::string content_type;
  // The Retry-After header in seconds (429 and 503 answers carry one), or 0.
  int retry_after_seconds = 0;
};

// Receives a streamed response body chunk by chunk as it arrives; returns
// false to stop reading.
using ChunkHandler = std::function<bool(std::string_view chunk)>;

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  // Sends one request (`path_and_query` starts with '/') and reads the whole
  // body. A non-2xx answer is still a response; only transport failures are
  // errors: Unavailable (refused, reset, TLS), Timeout (no whole answer by
  // call.deadline, which is on the real steady clock, or within
  // RestConfig::timeout when unset), Cancelled (call.cancel fired),
  // InvalidArgument (a path that is not a valid URI), Unauthorized (the
  // token file cannot be read). call.timeout is ignored: callers resolve it
  // into the deadline.
  virtual Result<HttpResponse> Send(std::string_view method, std::string_view path_and_query,
                                    std::string_view body = {}, std::string_view content_type = {},
                                    const CallOptions& call = {}) = 0;

  // Sends a GET and hands the body to `on_chunk` as it arrives, until the
  // server ends it, `on_chunk` returns false or `cancel` fires; a 2xx answer
  // first gets one empty chunk as soon as its headers arrive. Returns the
  // status code; for a non-2xx answer the body goes to `error_body` instead.
  // Cancelled when `cancel` fired. No deadline: the server ends watches
  // (timeoutSeconds), and a connection silent for 15 minutes is dropped.
  virtual Result<int> Stream(std::string_view path_and_query, const ChunkHandler& on_chunk,
                             std::string* error_body, Cancellation* cancel) = 0;
};

// Sets how many threads run the I/O of every transport in the process
// (cpprestsdk's shared pool, 40 unless set). Requests and streams wait on the
// caller's thread, so a few I/O threads serve many callers; each idle one
// still costs its stack and, with glibc, a malloc arena. Call before the
// first request of the process; FailedPrecondition once the pool runs, and
// InvalidArgument for 0.
Status SetHttpIoThreads(size_t threads);

// Makes a transport for `config` (an https:// server, or http:// for a
// plain one). Fails with InvalidArgument, saying what is wrong, when the
// server URL or the PEM material (CA, client certificate, key) is unusable,
// or a client certificate comes without its key or a key without its
// certificate.
Result<std::unique_ptr<HttpTransport>> NewHttpTransport(const RestConfig& config);

}  // namespace vtenant::kube

// RestClient: Client over HTTP(S) to a real API server.
//
// Retry policy (RetryPolicy below), like client-go's:
//   - Reads (GET) are retried on 429 TooManyRequests, 503/Unavailable
//     (refused, reset) and 504/Timeout answers.
//   - Writes (POST, PUT, PATCH, DELETE) are retried only where the server
//     cannot have acted: 429, a refused connection, a request that could not
//     be written. A write that timed out or got no answer is not retried:
//     it may have been applied, and the caller decides (for an update its
//     resourceVersion makes a second try safe; for a create it may not be).
//   - Between tries it backs off exponentially, or as long as the server's
//     Retry-After asks, whichever is longer.
//   - Nothing outlives the call's deadline (CallOptions, default
//     RestConfig::timeout): each try is cut at it, and a backoff that would
//     end past it is not slept; the call returns the last error at once.
//   - Cancel ends a try in flight and a backoff at once, with Cancelled.
#pragma once

#include <chrono>
#include <memory>

#include "kube/client.h"
#include "kube/clock.h"
#include "kube/http_transport.h"
#include "kube/rest_config.h"

namespace vtenant::kube {

struct RetryPolicy {
  // Tries per call, the first one included.
  int max_attempts = 5;
  // Backoff before the second try; doubles each time up to max_backoff.
  Clock::Duration initial_backoff = std::chrono::milliseconds(100);
  Clock::Duration max_backoff = std::chrono::seconds(5);
  // A call's timeout when its CallOptions set none (CallDeadline).
  Clock::Duration default_timeout = std::chrono::seconds(30);
  // Times deadlines and backoffs; the transport must read the same clock
  // (the real transport reads the real steady clock). Must outlive the client.
  Clock* clock = &DefaultClock();
};

class RestClient final : public Client {
 public:
  // Connects lazily; fails only on an unusable config (see NewHttpTransport).
  // The default timeout of calls is config.timeout.
  static Result<std::unique_ptr<RestClient>> Create(const RestConfig& config);
  // A client over any transport (tests put a fake one here).
  explicit RestClient(std::unique_ptr<HttpTransport> transport, RetryPolicy policy = {});

  // kube::Client's calls, declared again as every implementation
  // (FakeClient too) must.
  Result<Object> Get(const ResourceType& type, std::string_view ns, std::string_view name,
                     const CallOptions& call = {}) override;
  Result<ObjectList> List(const ResourceType& type, std::string_view ns,
                          const ListOptions& options = {}, const CallOptions& call = {}) override;
  Result<Object> Create(const ResourceType& type, std::string_view ns,
                        const rapidjson::Value& object, std::string_view subresource = {},
                        const CallOptions& call = {}) override;
  Result<Object> Update(const ResourceType& type, std::string_view ns,
                        const rapidjson::Value& object, std::string_view subresource = {},
                        const CallOptions& call = {}) override;
  Result<Object> Patch(const ResourceType& type, std::string_view ns, std::string_view name,
                       PatchType patch_type, std::string_view patch,
                       const PatchOptions& options = {}, const CallOptions& call = {}) override;
  Status Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                const DeleteOptions& options = {}, const CallOptions& call = {}) override;
  Status Watch(const ResourceType& type, std::string_view ns, const ListOptions& options,
               const WatchHandler& handler, Cancellation* cancel = nullptr) override;

  // A raw GET of any path (e.g. "/readyz", "/version"): status code and body.
  // One try, no retries; a non-2xx answer is a response, not an error.
  Result<HttpResponse> RawGet(std::string_view path, const CallOptions& call = {});

 private:
  // Sends a request under the retry policy above and decodes a 2xx JSON
  // answer.
  Result<Object> Do(std::string_view method, const std::string& path, std::string_view body,
                    std::string_view content_type, const CallOptions& call);

  std::unique_ptr<HttpTransport> transport_;
  const RetryPolicy policy_;
};

// Percent-encodes a query parameter value.
std::string EscapeQueryValue(std::string_view value);

}  // namespace vtenant::kube

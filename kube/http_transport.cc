#include "kube/http_transport.h"

#include <cpprest/http_client.h>
#include <glog/logging.h>
#include <openssl/ssl.h>
#include <pplx/threadpool.h>

#include <boost/asio/ssl.hpp>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

#include "kube/rate_limiter.h"
#include "kube/tls_trust.h"

namespace vtenant::kube {
namespace {

namespace http = web::http;
namespace client = web::http::client;

// Watches idle for at most this long between bookmarks before we reconnect.
constexpr auto kStreamIdleTimeout = std::chrono::minutes(15);
// What a stream (a watch) reads into at a time.
constexpr size_t kStreamBufferBytes = 16 * 1024;

Status TransportError(const std::string& where, const std::exception& e) {
  const auto* http_error = dynamic_cast<const http::http_exception*>(&e);
  if (http_error != nullptr && http_error->error_code() == std::errc::timed_out) {
    return {StatusCode::kTimeout, where + ": " + e.what()};
  }
  return Unavailable(where + ": " + e.what());
}

// Checks the PEM material the way the TLS handshake will use it, so a bad
// certificate fails at construction with a message naming it, not later as
// an obscure handshake error on every request.
Status CheckPem(const RestConfig& config) {
  boost::asio::ssl::context ctx(boost::asio::ssl::context::tls_client);
  boost::system::error_code ec;
  if (!config.ca_pem.empty()) {
    ctx.add_certificate_authority(boost::asio::buffer(config.ca_pem), ec);
    if (ec) return InvalidArgument("CA certificate (certificate-authority-data): " + ec.message());
  }
  if (!config.client_certificate_pem.empty()) {
    ctx.use_certificate_chain(boost::asio::buffer(config.client_certificate_pem), ec);
    if (ec) {
      return InvalidArgument("client certificate (client-certificate-data): " + ec.message());
    }
    ctx.use_private_key(boost::asio::buffer(config.client_key_pem), boost::asio::ssl::context::pem,
                        ec);
    if (ec) return InvalidArgument("client key (client-key-data): " + ec.message());
  }
  return Status::Ok();
}

int RetryAfterSeconds(const http::http_headers& headers) {
  auto it = headers.find("Retry-After");
  if (it == headers.end()) return 0;
  try {
    return std::max(0, std::stoi(it->second));
  } catch (const std::exception&) {
    return 0;  // an HTTP date; the caller's own backoff applies
  }
}

// What a request in flight and its waiter share. Owned jointly so a request
// abandoned at its deadline can finish on cpprestsdk's threads after Send
// has returned.
struct PendingRequest {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Result<HttpResponse>> result;  // set once the request ends
  bool cancelled = false;
};

// The store every connection to `config`'s server trusts: its CA alone when
// it has one (as client-go trusts certificate-authority-data alone), else
// the system's roots, loaded once per process. nullptr when TLS is not
// verified. CheckPem has accepted the CA before.
std::shared_ptr<X509_STORE> TrustFor(const RestConfig& config) {
  if (config.insecure_skip_tls_verify) return nullptr;
  if (!config.ca_pem.empty()) return TrustOnly(config.ca_pem);
  return SystemTrust();
}

class CppRestTransport final : public HttpTransport {
 public:
  explicit CppRestTransport(const RestConfig& config)
      : config_(config),
        limiter_(config.qps, config.burst, DefaultClock()),
        trust_(TrustFor(config)),
        client_(utility::conversions::to_string_t(config.server), MakeClientConfig(config.timeout)),
        stream_client_(utility::conversions::to_string_t(config.server),
                       MakeClientConfig(kStreamIdleTimeout)) {}

  Result<HttpResponse> Send(std::string_view method, std::string_view path_and_query,
                            std::string_view body, std::string_view content_type,
                            const CallOptions& call) override {
    const std::string what = std::string(method) + " " + std::string(path_and_query);
    const Clock::TimePoint deadline =
        call.deadline.value_or(std::chrono::steady_clock::now() + config_.timeout);
    VT_RETURN_IF_ERROR(WaitForRequestToken(what, deadline, call.cancel));
    VT_ASSIGN_OR_RETURN(http::http_request request, NewRequest(method, path_and_query));
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      request.set_body(std::string(body),
                       std::string(content_type.empty() ? "application/json" : content_type));
    }
    pplx::cancellation_token_source source;
    auto pending = std::make_shared<PendingRequest>();
    try {
      // A new connection's context is made on this thread, inside request().
      DefaultVerifyPathsSkipped trust_set_by_the_callback;
      client_.request(request, source.get_token())
          .then([](http::http_response response) {
            auto out = std::make_shared<HttpResponse>();
            out->status_code = response.status_code();
            out->content_type = response.headers().content_type();
            out->retry_after_seconds = RetryAfterSeconds(response.headers());
            return response.extract_vector().then([out](std::vector<unsigned char> bytes) {
              out->body.assign(bytes.begin(), bytes.end());
              return std::move(*out);
            });
          })
          .then([pending, what](pplx::task<HttpResponse> task) {
            // Always observes the task's outcome, even when the waiter gave
            // up: pplx raises SIGTRAP for an exception nobody looked at.
            Result<HttpResponse> result = HttpResponse{};
            try {
              result = task.get();
            } catch (const pplx::task_canceled&) {
              result = Status(StatusCode::kCancelled, what + ": cancelled");
            } catch (const std::exception& e) {
              result = TransportError(what, e);
            }
            std::lock_guard lock(pending->mu);
            pending->result = std::move(result);
            pending->cv.notify_all();
          });
    } catch (const std::exception& e) {
      return TransportError(what, e);
    }
    CancellationRegistration on_cancel(call.cancel, [pending] {
      std::lock_guard lock(pending->mu);
      pending->cancelled = true;
      pending->cv.notify_all();
    });
    std::unique_lock lock(pending->mu);
    pending->cv.wait_until(lock, deadline,
                           [&] { return pending->result.has_value() || pending->cancelled; });
    if (pending->result.has_value()) return std::move(*pending->result);
    // cpprestsdk closes the connection; the task ends on its own threads.
    lock.unlock();
    source.cancel();
    if (call.cancel != nullptr && call.cancel->cancelled()) {
      return Status(StatusCode::kCancelled, what + ": cancelled");
    }
    return Status(StatusCode::kTimeout, what + ": no answer before the call's deadline");
  }

  Result<int> Stream(std::string_view path_and_query, const ChunkHandler& on_chunk,
                     std::string* error_body, Cancellation* cancel) override {
    const std::string what = "GET " + std::string(path_and_query);
    VT_RETURN_IF_ERROR(WaitForRequestToken(what, Clock::TimePoint::max(), cancel));
    VT_ASSIGN_OR_RETURN(http::http_request request, NewRequest("GET", path_and_query));
    pplx::cancellation_token_source source;
    CancellationRegistration on_cancel(cancel, [source] { source.cancel(); });
    try {
      pplx::task<http::http_response> started;
      {
        DefaultVerifyPathsSkipped trust_set_by_the_callback;
        started = stream_client_.request(request, source.get_token());
      }
      http::http_response response = started.get();
      const int code = response.status_code();
      auto body = response.body();
      if (code < 200 || code >= 300) {
        std::vector<unsigned char> bytes = response.extract_vector().get();
        if (error_body != nullptr) error_body->assign(bytes.begin(), bytes.end());
        return code;
      }
      // getn(n) on cpprestsdk's body buffer waits until n bytes are there or
      // the stream ends, so asking for a whole buffer would hold small watch
      // events back until a buffer's worth piled up. Wait for one byte, then
      // take what has already arrived: events reach the handler as they
      // happen. The buffer lives as long as the watch (all the time, for an
      // informer), so it is kept small: a larger event takes several reads.
      std::vector<char> buffer(kStreamBufferBytes);
      auto streambuf = body.streambuf();
      auto* bytes = reinterpret_cast<uint8_t*>(buffer.data());
      bool more = on_chunk(std::string_view());  // the answer has begun
      while (more) {
        if (cancel != nullptr && cancel->cancelled()) break;
        size_t n = streambuf.getn(bytes, 1).get();
        if (n == 0) break;  // end of stream
        const size_t available = std::min<size_t>(streambuf.in_avail(), buffer.size() - 1);
        if (available > 0) n += streambuf.getn(bytes + 1, available).get();
        more = on_chunk(std::string_view(buffer.data(), n));
      }
      if (cancel != nullptr && cancel->cancelled()) {
        return Status(StatusCode::kCancelled, "stream cancelled");
      }
      return code;
    } catch (const pplx::task_canceled&) {
      return Status(StatusCode::kCancelled, "stream cancelled");
    } catch (const std::exception& e) {
      if (cancel != nullptr && cancel->cancelled()) {
        return Status(StatusCode::kCancelled, "stream cancelled");
      }
      return TransportError(what, e);
    }
  }

 private:
  client::http_client_config MakeClientConfig(std::chrono::milliseconds timeout) const {
    client::http_client_config cfg;
    cfg.set_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
    cfg.set_validate_certificates(!config_.insecure_skip_tls_verify);
    const RestConfig config = config_;
    // The callback holds the store for as long as cpprestsdk may open
    // connections; each context takes a reference of its own. It runs for
    // every new connection, after cpprestsdk's default trust load, which
    // DefaultVerifyPathsSkipped leaves out for the requests Send and Stream
    // start: the store installed here is all the connection trusts.
    std::shared_ptr<X509_STORE> trust = trust_;
    cfg.set_ssl_context_callback([config, trust](boost::asio::ssl::context& ctx) {
      // CheckPem accepted this material at construction, so these succeed;
      // a failure would still surface as a handshake error on the request.
      boost::system::error_code ignored;
      if (trust != nullptr) SSL_CTX_set1_cert_store(ctx.native_handle(), trust.get());
      if (!config.client_certificate_pem.empty()) {
        ctx.use_certificate_chain(boost::asio::buffer(config.client_certificate_pem), ignored);
        ctx.use_private_key(boost::asio::buffer(config.client_key_pem),
                            boost::asio::ssl::context::pem, ignored);
      }
    });
    return cfg;
  }

  // The request with its URI and headers. InvalidArgument for a path that is
  // not a valid URI; Unauthorized when the token file cannot be read, rather
  // than sending the request without credentials.
  Result<http::http_request> NewRequest(std::string_view method,
                                        std::string_view path_and_query) const {
    http::http_request request{http::method(method)};
    try {
      request.set_request_uri(utility::conversions::to_string_t(std::string(path_and_query)));
    } catch (const std::exception& e) {
      return InvalidArgument("request path \"" + std::string(path_and_query) + "\": " + e.what());
    }
    request.headers().add("Accept", "application/json");
    request.headers().add("User-Agent", config_.user_agent);
    VT_ASSIGN_OR_RETURN(std::string token, BearerToken(config_));
    if (!token.empty()) request.headers().add("Authorization", "Bearer " + token);
    return request;
  }

  // Client-side QPS/burst, like client-go: callers wait their turn here, but
  // not past their deadline or a cancel.
  Status WaitForRequestToken(const std::string& what, Clock::TimePoint deadline,
                             Cancellation* cancel) {
    const Clock::Duration delay = limiter_.When("");
    if (delay <= Clock::Duration::zero()) return Status::Ok();
    const Clock::TimePoint until = std::chrono::steady_clock::now() + delay;
    if (until > deadline) {
      return Status(StatusCode::kTimeout,
                    what + ": client-side rate limit (qps) would delay it past its deadline");
    }
    if (SleepUntil(DefaultClock(), until, cancel)) {
      return Status(StatusCode::kCancelled, what + ": cancelled");
    }
    return Status::Ok();
  }

  RestConfig config_;
  BucketRateLimiter limiter_;
  // What the server's certificate is checked against: the kubeconfig's CA
  // alone, else the system's roots; nullptr when TLS is not verified.
  std::shared_ptr<X509_STORE> trust_;
  client::http_client client_;
  client::http_client stream_client_;
};

}  // namespace

Status SetHttpIoThreads(size_t threads) {
  if (threads == 0) return InvalidArgument("the HTTP I/O pool needs at least one thread");
  try {
    crossplat::threadpool::initialize_with_threads(threads);
  } catch (const std::exception& e) {
    return FailedPrecondition(std::string("the HTTP I/O pool already runs: ") + e.what());
  }
  return Status::Ok();
}

Result<std::unique_ptr<HttpTransport>> NewHttpTransport(const RestConfig& config) {
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0) {
    return InvalidArgument("server URL must start with https:// or http://, got \"" +
                           config.server + "\"");
  }
  if (config.client_certificate_pem.empty() != config.client_key_pem.empty()) {
    return InvalidArgument("a client certificate needs its key and vice versa");
  }
  VT_RETURN_IF_ERROR(CheckPem(config));
  try {
    return std::unique_ptr<HttpTransport>(new CppRestTransport(config));
  } catch (const std::exception& e) {
    return InvalidArgument("server URL \"" + config.server + "\": " + e.what());
  }
}

}  // namespace vtenant::kube

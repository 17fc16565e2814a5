#include "kube/http_transport.h"

#include <cpprest/http_client.h>
#include <glog/logging.h>

#include <boost/asio/ssl.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "kube/rate_limiter.h"

namespace vtenant::kube {
namespace {

namespace http = web::http;
namespace client = web::http::client;

// Watches idle for at most this long between bookmarks before we reconnect.
constexpr auto kStreamIdleTimeout = std::chrono::minutes(15);

Status TransportError(const std::string& where, const std::exception& e) {
  const auto* http_error = dynamic_cast<const http::http_exception*>(&e);
  if (http_error != nullptr && http_error->error_code() == std::errc::timed_out) {
    return {StatusCode::kTimeout, where + ": " + e.what()};
  }
  return Unavailable(where + ": " + e.what());
}

class CppRestTransport final : public HttpTransport {
 public:
  explicit CppRestTransport(const RestConfig& config)
      : config_(config),
        limiter_(config.qps, config.burst, DefaultClock()),
        client_(utility::conversions::to_string_t(config.server), MakeClientConfig(config.timeout)),
        stream_client_(utility::conversions::to_string_t(config.server),
                       MakeClientConfig(kStreamIdleTimeout)) {}

  Result<HttpResponse> Send(std::string_view method, std::string_view path_and_query,
                            std::string_view body, std::string_view content_type) override {
    WaitForRequestToken();
    http::http_request request = NewRequest(method, path_and_query);
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      request.set_body(std::string(body),
                       std::string(content_type.empty() ? "application/json" : content_type));
    }
    try {
      http::http_response response = client_.request(request).get();
      HttpResponse out;
      out.status_code = response.status_code();
      out.content_type = response.headers().content_type();
      std::vector<unsigned char> bytes = response.extract_vector().get();
      out.body.assign(bytes.begin(), bytes.end());
      return out;
    } catch (const std::exception& e) {
      return TransportError(std::string(method) + " " + std::string(path_and_query), e);
    }
  }

  Result<int> Stream(std::string_view path_and_query, const ChunkHandler& on_chunk,
                     std::string* error_body, Cancellation* cancel) override {
    WaitForRequestToken();
    http::http_request request = NewRequest("GET", path_and_query);
    pplx::cancellation_token_source source;
    CancellationRegistration on_cancel(cancel, [source] { source.cancel(); });
    try {
      http::http_response response = stream_client_.request(request, source.get_token()).get();
      const int code = response.status_code();
      auto body = response.body();
      if (code < 200 || code >= 300) {
        std::vector<unsigned char> bytes = response.extract_vector().get();
        if (error_body != nullptr) error_body->assign(bytes.begin(), bytes.end());
        return code;
      }
      // getn(n) on cpprestsdk's body buffer waits until n bytes are there or
      // the stream ends, so asking for a whole buffer would hold small watch
      // events back until 64 KiB piled up. Wait for one byte, then take what
      // has already arrived: events reach the handler as they happen.
      std::vector<char> buffer(64 * 1024);
      auto streambuf = body.streambuf();
      auto* bytes = reinterpret_cast<uint8_t*>(buffer.data());
      while (true) {
        if (cancel != nullptr && cancel->cancelled()) break;
        size_t n = streambuf.getn(bytes, 1).get();
        if (n == 0) break;  // end of stream
        const size_t available = std::min<size_t>(streambuf.in_avail(), buffer.size() - 1);
        if (available > 0) n += streambuf.getn(bytes + 1, available).get();
        if (!on_chunk(std::string_view(buffer.data(), n))) break;
      }
      return code;
    } catch (const pplx::task_canceled&) {
      return Status(StatusCode::kCancelled, "stream cancelled");
    } catch (const std::exception& e) {
      if (cancel != nullptr && cancel->cancelled()) {
        return Status(StatusCode::kCancelled, "stream cancelled");
      }
      return TransportError("GET " + std::string(path_and_query), e);
    }
  }

 private:
  client::http_client_config MakeClientConfig(std::chrono::milliseconds timeout) const {
    client::http_client_config cfg;
    cfg.set_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
    cfg.set_validate_certificates(!config_.insecure_skip_tls_verify);
    const RestConfig config = config_;
    cfg.set_ssl_context_callback([config](boost::asio::ssl::context& ctx) {
      // Errors here surface as handshake failures on the request, with
      // OpenSSL's reason, which is the most useful place for them.
      boost::system::error_code ignored;
      if (!config.ca_pem.empty()) {
        ctx.add_certificate_authority(boost::asio::buffer(config.ca_pem), ignored);
      }
      if (!config.client_certificate_pem.empty()) {
        ctx.use_certificate_chain(boost::asio::buffer(config.client_certificate_pem), ignored);
        ctx.use_private_key(boost::asio::buffer(config.client_key_pem),
                            boost::asio::ssl::context::pem, ignored);
      }
    });
    return cfg;
  }

  http::http_request NewRequest(std::string_view method, std::string_view path_and_query) const {
    http::http_request request{http::method(method)};
    request.set_request_uri(utility::conversions::to_string_t(std::string(path_and_query)));
    request.headers().add("Accept", "application/json");
    request.headers().add("User-Agent", config_.user_agent);
    std::string token = config_.bearer_token;
    if (token.empty() && !config_.bearer_token_file.empty()) {
      std::ifstream in(config_.bearer_token_file);
      std::stringstream ss;
      ss << in.rdbuf();
      token = ss.str();
      while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    }
    if (!token.empty()) request.headers().add("Authorization", "Bearer " + token);
    return request;
  }

  // Client-side QPS/burst, like client-go: callers wait their turn here.
  void WaitForRequestToken() {
    const Clock::Duration delay = limiter_.When("");
    if (delay > Clock::Duration::zero()) std::this_thread::sleep_for(delay);
  }

  RestConfig config_;
  BucketRateLimiter limiter_;
  client::http_client client_;
  client::http_client stream_client_;
};

}  // namespace

Result<std::unique_ptr<HttpTransport>> NewHttpTransport(const RestConfig& config) {
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0) {
    return InvalidArgument("server URL must start with https:// or http://, got \"" +
                           config.server + "\"");
  }
  if (config.client_certificate_pem.empty() != config.client_key_pem.empty()) {
    return InvalidArgument("a client certificate needs its key and vice versa");
  }
  try {
    return std::unique_ptr<HttpTransport>(new CppRestTransport(config));
  } catch (const std::exception& e) {
    return InvalidArgument("server URL \"" + config.server + "\": " + e.what());
  }
}

}  // namespace vtenant::kube

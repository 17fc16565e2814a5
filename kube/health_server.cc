#include "kube/health_server.h"

#include <cpprest/http_listener.h>
#include <glog/logging.h>

#include <exception>

namespace vtenant::kube {
namespace {

namespace http = web::http;

constexpr char kTextContentType[] = "text/plain; charset=utf-8";
constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// Runs a check so that a throwing check reads as a failed one, not as a
// crashed server thread.
Status RunCheck(const HealthServer::Check& check) {
  try {
    return check();
  } catch (const std::exception& e) {
    return Internal(std::string("exception: ") + e.what());
  } catch (...) {
    return Internal("unknown exception");
  }
}

// Sends a reply and swallows a client that went away meanwhile; cpprestsdk
// would otherwise report it as an unobserved exception.
void Reply(const http::http_request& request, http::status_code code, std::string body,
           const std::string& content_type) {
  try {
    http::http_response response(code);
    response.set_body(std::move(body), content_type);
    request.reply(response).then([](pplx::task<void> sent) {
      try {
        sent.get();
      } catch (const std::exception& e) {
        VLOG(1) << "health server reply not sent: " << e.what();
      }
    });
  } catch (const std::exception& e) {
    VLOG(1) << "health server reply not sent: " << e.what();
  }
}

// Whether `query` ("a=1&verbose") names `key`, with or without a value.
bool HasQueryParameter(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    if (pair.substr(0, pair.find('=')) == key) return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

}  // namespace

HealthServer::HealthServer(const Registry& registry) : registry_(registry) {}

HealthServer::~HealthServer() { Stop(); }

void HealthServer::AddHealthCheck(std::string name, Check check) {
  std::lock_guard guard(checks_mu_);
  health_checks_.emplace_back(std::move(name), std::move(check));
}

void HealthServer::AddReadyCheck(std::string name, Check check) {
  std::lock_guard guard(checks_mu_);
  ready_checks_.emplace_back(std::move(name), std::move(check));
}

Status HealthServer::Start(const std::string& host, uint16_t port) {
  std::lock_guard guard(listener_mu_);
  if (listener_) return FailedPrecondition("health server already listening on " + url_);
  if (port == 0) {
    return InvalidArgument(
        "health server needs an explicit port; cpprestsdk cannot report one "
        "chosen by the kernel");
  }
  std::string url = "http://" + host + ":" + std::to_string(port);
  std::unique_ptr<http::experimental::listener::http_listener> listener;
  try {
    web::uri uri(url);
    listener = std::make_unique<http::experimental::listener::http_listener>(uri);
  } catch (const std::exception& e) {
    return InvalidArgument("health server address " + url + ": " + e.what());
  }
  listener->support([this](http::http_request request) { Handle(request); });
  try {
    listener->open().wait();
  } catch (const std::exception& e) {
    return Unavailable("health server cannot listen on " + url + ": " + e.what());
  }
  listener_ = std::move(listener);
  url_ = url;
  LOG(INFO) << "health server listening on " << url_;
  return Status::Ok();
}

void HealthServer::Stop() {
  std::lock_guard guard(listener_mu_);
  if (!listener_) return;
  try {
    listener_->close().wait();
  } catch (const std::exception& e) {
    LOG(WARNING) << "closing health server on " << url_ << ": " << e.what();
  }
  listener_.reset();
  url_.clear();
}

std::string HealthServer::url() const {
  std::lock_guard guard(listener_mu_);
  return url_;
}

Status HealthServer::Ready() const {
  auto [code, body] = RunChecks(/*include_ready_checks=*/true, /*verbose=*/false);
  return code == http::status_codes::OK ? Status::Ok() : Unavailable(body);
}

std::pair<int, std::string> HealthServer::RunChecks(bool include_ready_checks, bool verbose) const {
  std::vector<NamedCheck> checks;
  {
    // Copied so a slow check does not block AddHealthCheck.
    std::lock_guard guard(checks_mu_);
    checks = health_checks_;
    if (include_ready_checks)
      checks.insert(checks.end(), ready_checks_.begin(), ready_checks_.end());
  }
  std::string report;
  bool failed = false;
  for (const auto& [name, check] : checks) {
    Status status = RunCheck(check);
    if (status.ok()) {
      report += "[+]" + name + " ok\n";
    } else {
      failed = true;
      report += "[-]" + name + " failed: " + status.ToString() + "\n";
    }
  }
  std::string endpoint = include_ready_checks ? "readyz" : "healthz";
  if (failed)
    return {http::status_codes::ServiceUnavailable, report + endpoint + " check failed\n"};
  if (verbose) return {http::status_codes::OK, report + endpoint + " check passed\n"};
  return {http::status_codes::OK, "ok"};
}

void HealthServer::Handle(const http::http_request& request) const {
  try {
    std::string path = request.relative_uri().path();
    if (request.method() != http::methods::GET) {
      Reply(request, http::status_codes::MethodNotAllowed, "only GET is served\n",
            kTextContentType);
      return;
    }
    if (path == "/metrics") {
      Reply(request, http::status_codes::OK, registry_.Render(), kMetricsContentType);
      return;
    }
    if (path == "/healthz" || path == "/readyz") {
      bool verbose = HasQueryParameter(request.relative_uri().query(), "verbose");
      auto [code, body] = RunChecks(path == "/readyz", verbose);
      Reply(request, code, std::move(body), kTextContentType);
      return;
    }
    Reply(request, http::status_codes::NotFound, "not found: " + path + "\n", kTextContentType);
  } catch (const std::exception& e) {
    LOG(WARNING) << "health server request failed: " << e.what();
    Reply(request, http::status_codes::InternalError, "internal error\n", kTextContentType);
  }
}

}  // namespace vtenant::kube

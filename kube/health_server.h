// HealthServer: the small HTTP endpoint every vtenant program embeds for its
// kubelet probes and for Prometheus.
//
//   GET /healthz  liveness: the health checks
//   GET /readyz   readiness: the health checks and the ready checks
//   GET /metrics  the metrics registry, text format 0.0.4
//
// /healthz and /readyz answer 200 "ok" when every check passes, else 503 with
// one line per check the way kube-apiserver writes them:
//   [+]informers ok
//   [-]leader failed: Unavailable: lost the leader lease; competing for it again
//   readyz check failed
// "?verbose" lists the checks on success too.
//
// Built on cpprestsdk's http_listener; its exceptions stop here and come back
// as Status. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kube/metrics.h"

namespace web::http::experimental::listener {
class http_listener;
}  // namespace web::http::experimental::listener

namespace web::http {
class http_request;
}  // namespace web::http

namespace vtenant::kube {

class HealthServer {
 public:
  // A check returns OK when healthy; its message says why not otherwise.
  using Check = std::function<Status()>;

  // Serves `registry` on /metrics. The registry must outlive the server.
  explicit HealthServer(const Registry& registry = DefaultRegistry());

  // Stops the server if running.
  ~HealthServer();

  HealthServer(const HealthServer&) = delete;
  HealthServer& operator=(const HealthServer&) = delete;

  // Adds a liveness check, reported by /healthz and /readyz. May be called
  // before or after Start. Checks run on the server's threads, once per
  // request, so they should be quick (read a flag, not call an API server).
  void AddHealthCheck(std::string name, Check check);

  // Adds a readiness check, reported by /readyz only.
  void AddReadyCheck(std::string name, Check check);

  // Listens on http://host:port. `host` is a name or IP literal to bind
  // ("127.0.0.1" in tests, "0.0.0.0" in a pod); `port` must be explicit (1 to
  // 65535): cpprestsdk cannot report a kernel-chosen port. Returns
  // InvalidArgument for a bad address, Unavailable when it cannot bind (port
  // in use), FailedPrecondition when already started.
  Status Start(const std::string& host, uint16_t port);

  // Stops listening and closes connections. Idempotent; the server can be
  // started again afterwards.
  void Stop();

  // "http://host:port" while running, else empty.
  std::string url() const;

  // What /readyz would answer now, without a request: OK, or Unavailable
  // with the report naming the failed checks.
  Status Ready() const;

 private:
  using NamedCheck = std::pair<std::string, Check>;

  void Handle(const web::http::http_request& request) const;
  // The status and body for /healthz or /readyz.
  std::pair<int, std::string> RunChecks(bool include_ready_checks, bool verbose) const;

  const Registry& registry_;

  mutable std::mutex checks_mu_;
  std::vector<NamedCheck> health_checks_;
  std::vector<NamedCheck> ready_checks_;

  mutable std::mutex listener_mu_;  // serialises Start and Stop
  std::unique_ptr<web::http::experimental::listener::http_listener> listener_;
  std::string url_;
};

}  // namespace vtenant::kube

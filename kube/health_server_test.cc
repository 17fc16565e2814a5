#include "kube/health_server.h"

#include <cpprest/http_client.h>
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "kube/loopback.h"

namespace vtenant::kube {
namespace {

namespace http = web::http;

struct Response {
  int code = 0;
  std::string body;
  std::string content_type;
};

Response Fetch(const std::string& url, const std::string& path_and_query,
               const http::method& method = http::methods::GET) {
  http::client::http_client client(url);
  http::http_response response = client.request(method, path_and_query).get();
  return {response.status_code(), response.extract_utf8string(true).get(),
          response.headers().content_type()};
}

// Starts `server` on a free loopback port, retrying if another process takes
// the port between picking and binding.
uint16_t StartOnFreePort(HealthServer& server) {
  Status last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    Result<int> port = PickFreeLoopbackPort();
    EXPECT_TRUE(port.ok()) << port.status().ToString();
    if (!port.ok()) return 0;
    last = server.Start("127.0.0.1", static_cast<uint16_t>(*port));
    if (last.ok()) return static_cast<uint16_t>(*port);
  }
  ADD_FAILURE() << "could not start: " << last.ToString();
  return 0;
}

class HealthServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = StartOnFreePort(server_);
    ASSERT_NE(port_, 0);
    url_ = server_.url();
    ASSERT_EQ(url_, "http://127.0.0.1:" + std::to_string(port_));
  }

  Registry registry_;
  HealthServer server_{registry_};
  uint16_t port_ = 0;
  std::string url_;
};

TEST_F(HealthServerTest, OkWithoutChecks) {
  Response healthz = Fetch(url_, "/healthz");
  EXPECT_EQ(healthz.code, 200);
  EXPECT_EQ(healthz.body, "ok");
  EXPECT_EQ(healthz.content_type, "text/plain; charset=utf-8");
  Response readyz = Fetch(url_, "/readyz");
  EXPECT_EQ(readyz.code, 200);
  EXPECT_EQ(readyz.body, "ok");
}

TEST_F(HealthServerTest, ReadyzListsFailingChecksUntilTheyPass) {
  std::atomic<bool> synced = false;
  server_.AddHealthCheck("ping", [] { return Status::Ok(); });
  server_.AddReadyCheck("informers-synced", [&]() -> Status {
    if (synced) return Status::Ok();
    return Unavailable("caches not synced");
  });

  Response readyz = Fetch(url_, "/readyz");
  EXPECT_EQ(readyz.code, 503);
  EXPECT_EQ(readyz.body,
            "[+]ping ok\n"
            "[-]informers-synced failed: Unavailable: caches not synced\n"
            "readyz check failed\n");
  // Readiness checks do not make the process unhealthy.
  Response healthz = Fetch(url_, "/healthz");
  EXPECT_EQ(healthz.code, 200);
  EXPECT_EQ(healthz.body, "ok");

  synced = true;
  readyz = Fetch(url_, "/readyz");
  EXPECT_EQ(readyz.code, 200);
  EXPECT_EQ(readyz.body, "ok");
}

TEST_F(HealthServerTest, FailingHealthCheckFailsBothEndpoints) {
  server_.AddHealthCheck("deadlock", [] { return Internal("worker stuck"); });
  Response healthz = Fetch(url_, "/healthz");
  EXPECT_EQ(healthz.code, 503);
  EXPECT_EQ(healthz.body, "[-]deadlock failed: Internal: worker stuck\nhealthz check failed\n");
  EXPECT_EQ(Fetch(url_, "/readyz").code, 503);
}

TEST_F(HealthServerTest, VerboseListsPassingChecks) {
  server_.AddHealthCheck("ping", [] { return Status::Ok(); });
  server_.AddReadyCheck("leader", [] { return Status::Ok(); });
  Response readyz = Fetch(url_, "/readyz?verbose");
  EXPECT_EQ(readyz.code, 200);
  EXPECT_EQ(readyz.body, "[+]ping ok\n[+]leader ok\nreadyz check passed\n");
  Response healthz = Fetch(url_, "/healthz?x=1&verbose=true");
  EXPECT_EQ(healthz.body, "[+]ping ok\nhealthz check passed\n");
}

TEST_F(HealthServerTest, ThrowingCheckIsAFailureNotACrash) {
  server_.AddHealthCheck("throws", []() -> Status { throw std::runtime_error("boom"); });
  Response healthz = Fetch(url_, "/healthz");
  EXPECT_EQ(healthz.code, 503);
  EXPECT_NE(healthz.body.find("[-]throws failed: Internal: exception: boom"), std::string::npos)
      << healthz.body;
}

TEST_F(HealthServerTest, ServesMetricsInTextFormat) {
  Family<Counter>* served = registry_.AddCounter("served_total", "Served.", {"path"}).value();
  served->WithLabelValues({"/metrics"}).Inc(2);
  Response metrics = Fetch(url_, "/metrics");
  EXPECT_EQ(metrics.code, 200);
  EXPECT_EQ(metrics.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(metrics.body,
            "# HELP served_total Served.\n"
            "# TYPE served_total counter\n"
            "served_total{path=\"/metrics\"} 2\n");
}

TEST_F(HealthServerTest, UnknownPathsAndMethods) {
  EXPECT_EQ(Fetch(url_, "/nope").code, 404);
  EXPECT_EQ(Fetch(url_, "/healthz", http::methods::POST).code, 405);
}

TEST_F(HealthServerTest, StartTwiceIsRefused) {
  Status again = server_.Start("127.0.0.1", port_);
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition) << again.ToString();
}

TEST_F(HealthServerTest, PortInUseIsUnavailable) {
  Registry other_registry;
  HealthServer other(other_registry);
  Status status = other.Start("127.0.0.1", port_);
  EXPECT_EQ(status.code(), StatusCode::kUnavailable) << status.ToString();
  EXPECT_EQ(other.url(), "");
}

TEST_F(HealthServerTest, StopClosesTheListenerAndAllowsARestart) {
  server_.Stop();
  server_.Stop();  // idempotent
  EXPECT_EQ(server_.url(), "");
  EXPECT_THROW(Fetch(url_, "/healthz"), http::http_exception);
  ASSERT_TRUE(server_.Start("127.0.0.1", port_).ok());
  EXPECT_EQ(Fetch(url_, "/healthz").code, 200);
}

TEST(HealthServerReadyTest, ReadyGivesTheVerdictOfReadyzWithoutServing) {
  Registry registry;
  HealthServer server(registry);
  bool synced = false;
  server.AddReadyCheck("informers", [&] { return synced ? Status::Ok() : Unavailable("not yet"); });
  Status ready = server.Ready();
  EXPECT_EQ(ready.code(), StatusCode::kUnavailable);
  EXPECT_NE(ready.message().find("[-]informers failed"), std::string::npos) << ready.ToString();
  synced = true;
  EXPECT_TRUE(server.Ready().ok());
  server.AddHealthCheck("ping", [] { return Internal("broken"); });
  EXPECT_FALSE(server.Ready().ok());
}

TEST(HealthServerStartTest, RejectsPortZeroAndBadHosts) {
  Registry registry;
  HealthServer server(registry);
  EXPECT_EQ(server.Start("127.0.0.1", 0).code(), StatusCode::kInvalidArgument);
  Status bad_host = server.Start("not a host", 8080);
  EXPECT_EQ(bad_host.code(), StatusCode::kInvalidArgument) << bad_host.ToString();
}

}  // namespace
}  // namespace vtenant::kube

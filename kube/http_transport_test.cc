// Unit tests of the real transport's deadlines, cancellation and the errors
// it reports before sending. A loopback socket that never answers stands in
// for a hung API server; no processes.
#include "kube/http_transport.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "base/eventually.h"
#include "kube/loopback.h"

namespace vtenant::kube {
namespace {

using std::chrono::milliseconds;

// A listening loopback socket that never accepts: the kernel completes the
// TCP handshake and the request then waits forever, as on a hung server.
class SilentServer {
 public:
  SilentServer() {
    Result<int> fd = ListenOnLoopback(&port_);
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    fd_ = fd.value_or(-1);
  }
  ~SilentServer() { close(fd_); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A config whose own timeout cannot end a test: only the call's can.
RestConfig Config(const std::string& server) {
  RestConfig config;
  config.server = server;
  config.timeout = std::chrono::hours(1);
  config.qps = 0;
  return config;
}

TEST(HttpTransportTest, ARequestToAHungServerEndsAtItsDeadline) {
  SilentServer server;
  Result<std::unique_ptr<HttpTransport>> transport = NewHttpTransport(Config(server.url()));
  ASSERT_TRUE(transport.ok()) << transport.status().ToString();
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(300);
  Result<HttpResponse> response =
      (*transport)->Send("GET", "/api/v1/namespaces", {}, {}, {.deadline = deadline});
  EXPECT_EQ(response.status().code(), StatusCode::kTimeout) << response.status().ToString();
  EXPECT_GE(std::chrono::steady_clock::now(), deadline) << "it waited for the answer until then";
}

TEST(HttpTransportTest, CancelEndsARequestToAHungServer) {
  SilentServer server;
  Result<std::unique_ptr<HttpTransport>> transport = NewHttpTransport(Config(server.url()));
  ASSERT_TRUE(transport.ok()) << transport.status().ToString();
  Cancellation cancel;
  Status result;
  std::atomic<bool> returned = false;
  std::thread call([&] {
    result =
        (*transport)->Send("PUT", "/api/v1/namespaces/x", "{}", {}, {.cancel = &cancel}).status();
    returned = true;
  });
  std::this_thread::sleep_for(milliseconds(100));  // let the request reach the socket
  EXPECT_FALSE(returned);
  cancel.Cancel();
  call.join();
  EXPECT_EQ(result.code(), StatusCode::kCancelled) << result.ToString();
}

TEST(HttpTransportTest, CancelEndsAStreamFromAHungServer) {
  SilentServer server;
  Result<std::unique_ptr<HttpTransport>> transport = NewHttpTransport(Config(server.url()));
  ASSERT_TRUE(transport.ok()) << transport.status().ToString();
  Cancellation cancel;
  Result<int> result = 0;
  std::thread call([&] {
    result =
        (*transport)
            ->Stream(
                "/api/v1/pods?watch=true", [](std::string_view) { return true; }, nullptr, &cancel);
  });
  std::this_thread::sleep_for(milliseconds(100));
  cancel.Cancel();
  call.join();
  EXPECT_EQ(result.status().code(), StatusCode::kCancelled) << result.status().ToString();
}

TEST(HttpTransportTest, APathThatIsNoURIIsAnErrorNotAnException) {
  SilentServer server;
  Result<std::unique_ptr<HttpTransport>> transport = NewHttpTransport(Config(server.url()));
  ASSERT_TRUE(transport.ok());
  Result<HttpResponse> response = (*transport)->Send("GET", "/api/v1/name spaces/%zz");
  EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument) << response.status().ToString();
}

TEST(HttpTransportTest, AnUnreadableTokenFileFailsTheRequest) {
  SilentServer server;
  RestConfig config = Config(server.url());
  config.bearer_token_file = "/nonexistent/vtenant/token";
  Result<std::unique_ptr<HttpTransport>> transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok());
  Result<HttpResponse> response = (*transport)->Send("GET", "/api");
  EXPECT_EQ(response.status().code(), StatusCode::kUnauthorized) << response.status().ToString();
  EXPECT_NE(response.status().message().find("/nonexistent/vtenant/token"), std::string::npos);
}

TEST(HttpTransportTest, UnusablePemFailsAtConstructionNamingWhatIsWrong) {
  RestConfig config = Config("https://127.0.0.1:6443");
  config.ca_pem = "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n";
  Result<std::unique_ptr<HttpTransport>> transport = NewHttpTransport(config);
  EXPECT_EQ(transport.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(transport.status().message().find("CA certificate"), std::string::npos)
      << transport.status().ToString();

  config.ca_pem.clear();
  config.client_certificate_pem = "garbage";
  config.client_key_pem = "garbage";
  transport = NewHttpTransport(config);
  EXPECT_EQ(transport.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(transport.status().message().find("client certificate"), std::string::npos)
      << transport.status().ToString();
}

TEST(HttpTransportTest, AServerURLWithoutSchemeIsRejected) {
  EXPECT_EQ(NewHttpTransport(Config("127.0.0.1:6443")).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(HttpTransportTest, TheIoPoolIsSizedOnceBeforeItRuns) {
  EXPECT_EQ(SetHttpIoThreads(0).code(), StatusCode::kInvalidArgument);
  // Whether or not an earlier test already started the pool, it runs now.
  (void)SetHttpIoThreads(2);
  EXPECT_EQ(SetHttpIoThreads(2).code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace vtenant::kube

// Unit tests of RestClient's retry policy, deadlines and cancellation, over
// FakeTransport and FakeClock: no server, no sleeping.
#include <gtest/gtest.h>

#include <thread>

#include "base/eventually.h"
#include "kube/json_builder.h"
#include "kube/rest_client.h"
#include "kube/testing/fake_clock.h"
#include "kube/testing/fake_transport.h"

namespace vtenant::kube {
namespace {

namespace res = resources;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kConfigMap[] =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"}})";

// The text of a failure Status the server answers with.
std::string StatusBody(int code, const std::string& reason) {
  return ToJson(BuildJson(JsonObject{{"kind", "Status"},
                                     {"apiVersion", "v1"},
                                     {"status", "Failure"},
                                     {"reason", reason},
                                     {"message", "from the test"},
                                     {"code", code}}));
}

Object ConfigMap() {
  Result<Object> parsed = ParseJson(kConfigMap);
  EXPECT_TRUE(parsed.ok());
  return std::move(parsed).value();
}

class RestClientRetryTest : public ::testing::Test {
 protected:
  // Sleeps end at once, time jumping to their end, so Requests() shows each
  // backoff exactly.
  void SetUp() override { clock_.SetAdvanceOnWait(true); }

  RestClient& client() {
    if (!client_) {
      auto transport = std::make_unique<FakeTransport>(&clock_);
      transport_ = transport.get();
      policy_.clock = &clock_;
      client_ = std::make_unique<RestClient>(std::move(transport), policy_);
    }
    return *client_;
  }
  FakeTransport& transport() {
    client();
    return *transport_;
  }

  // Offsets from the first request of each request's send time.
  std::vector<Clock::Duration> Gaps() {
    std::vector<Clock::Duration> gaps;
    std::vector<RecordedRequest> requests = transport().Requests();
    for (size_t i = 1; i < requests.size(); ++i) {
      gaps.push_back(requests[i].sent_at - requests[i - 1].sent_at);
    }
    return gaps;
  }

  FakeClock clock_;
  RetryPolicy policy_;
  FakeTransport* transport_ = nullptr;
  std::unique_ptr<RestClient> client_;
};

TEST_F(RestClientRetryTest, ReadsRetryThrottlingUnavailableAndTimeoutsWithDoublingBackoff) {
  transport().Push(Answer(429, StatusBody(429, "TooManyRequests")));
  transport().Push(Answer(503, StatusBody(503, "ServiceUnavailable")));
  transport().Push(Status(StatusCode::kUnavailable, "connection reset by peer"));
  transport().Push(Answer(504, StatusBody(504, "Timeout")));
  transport().Push(Answer(200, kConfigMap));
  Result<Object> got = client().Get(res::kConfigMaps, "default", "c");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(Name(*got), "c");
  EXPECT_EQ(Gaps(), (std::vector<Clock::Duration>{milliseconds(100), milliseconds(200),
                                                  milliseconds(400), milliseconds(800)}));
}

TEST_F(RestClientRetryTest, ReadsGiveUpAfterMaxAttemptsWithTheLastError) {
  policy_.max_attempts = 3;
  for (int i = 0; i < 5; ++i) transport().Push(Answer(503, StatusBody(503, "ServiceUnavailable")));
  Result<Object> got = client().Get(res::kConfigMaps, "default", "c");
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(transport().Requests().size(), 3u);
}

TEST_F(RestClientRetryTest, BackoffIsCappedAtMaxBackoff) {
  policy_.max_backoff = milliseconds(250);
  for (int i = 0; i < 5; ++i) transport().Push(Answer(429, StatusBody(429, "TooManyRequests")));
  EXPECT_EQ(client().Get(res::kConfigMaps, "default", "c").status().code(),
            StatusCode::kTooManyRequests);
  EXPECT_EQ(Gaps(), (std::vector<Clock::Duration>{milliseconds(100), milliseconds(200),
                                                  milliseconds(250), milliseconds(250)}));
}

TEST_F(RestClientRetryTest, RetryAfterLengthensTheBackoff) {
  transport().Push(Answer(429, StatusBody(429, "TooManyRequests"), /*retry_after_seconds=*/3));
  transport().Push(Answer(200, kConfigMap));
  ASSERT_TRUE(client().Get(res::kConfigMaps, "default", "c").ok());
  EXPECT_EQ(Gaps(), (std::vector<Clock::Duration>{seconds(3)}));
}

TEST_F(RestClientRetryTest, AnswersThatRetryingCannotChangeAreReturnedAtOnce) {
  const std::vector<std::pair<int, std::string>> answers = {
      {400, "BadRequest"}, {401, "Unauthorized"}, {403, "Forbidden"}, {404, "NotFound"},
      {409, "Conflict"},   {410, "Gone"},         {422, "Invalid"},   {500, "InternalError"}};
  for (const auto& [code, reason] : answers) {
    transport().Push(Answer(code, StatusBody(code, reason)));
  }
  for (const auto& [code, reason] : answers) {
    Result<Object> got = client().Get(res::kConfigMaps, "default", "c");
    EXPECT_FALSE(got.ok()) << code;
  }
  EXPECT_EQ(transport().Requests().size(), answers.size());
}

TEST_F(RestClientRetryTest, WritesRetryWhenTheServerCannotHaveActed) {
  // Throttled, refused, or never fully written: the server did nothing.
  transport().Push(Answer(429, StatusBody(429, "TooManyRequests")));
  transport().Push(Status(StatusCode::kUnavailable, "POST /api/v1/...: connection refused"));
  transport().Push(Status(StatusCode::kUnavailable, "Failed to write request body"));
  transport().Push(Answer(201, kConfigMap));
  Result<Object> created = client().Create(res::kConfigMaps, "default", ConfigMap());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(transport().Requests().size(), 4u);
  for (const RecordedRequest& r : transport().Requests()) EXPECT_EQ(r.method, "POST");
}

TEST_F(RestClientRetryTest, ACallMayTakeATooManyRequestsAnswerAsItsAnswer) {
  // An eviction a PodDisruptionBudget refuses: one try, the 429 comes back.
  transport().Push(Answer(429, StatusBody(429, "TooManyRequests")));
  Status s = client().Evict("default", "p", {.retry_too_many_requests = false});
  EXPECT_EQ(s.code(), StatusCode::kTooManyRequests) << s.ToString();
  EXPECT_EQ(transport().Requests().size(), 1u);
  // Other retryable answers are still retried.
  transport().Push(Status(StatusCode::kUnavailable, "connection refused"));
  transport().Push(Answer(201, "{}"));
  Status again = client().Evict("default", "p", {.retry_too_many_requests = false});
  EXPECT_TRUE(again.ok()) << again.ToString();
  EXPECT_EQ(transport().Requests().size(), 3u);
}

TEST_F(RestClientRetryTest, WritesAreNotRetriedWhenTheServerMayHaveActed) {
  // Each of these may follow a write the server applied; a second POST could
  // create twice, a second DELETE could delete a successor.
  const Object cm = ConfigMap();
  transport().Push(Answer(503, StatusBody(503, "ServiceUnavailable")));
  EXPECT_EQ(client().Create(res::kConfigMaps, "default", cm).status().code(),
            StatusCode::kUnavailable);
  transport().Push(Status(StatusCode::kTimeout, "POST: timed out"));
  EXPECT_EQ(client().Create(res::kConfigMaps, "default", cm).status().code(), StatusCode::kTimeout);
  transport().Push(Answer(504, StatusBody(504, "Timeout")));
  EXPECT_EQ(client().Update(res::kConfigMaps, "default", cm).status().code(), StatusCode::kTimeout);
  transport().Push(Status(StatusCode::kUnavailable, "connection reset by peer"));
  EXPECT_EQ(client()
                .Patch(res::kConfigMaps, "default", "c", PatchType::kMerge, R"({"data":{}})")
                .status()
                .code(),
            StatusCode::kUnavailable);
  transport().Push(Status(StatusCode::kUnavailable, "connection reset by peer"));
  EXPECT_EQ(client().Delete(res::kConfigMaps, "default", "c").code(), StatusCode::kUnavailable);
  std::vector<RecordedRequest> requests = transport().Requests();
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[2].method, "PUT");
  EXPECT_EQ(requests[3].method, "PATCH");
  EXPECT_EQ(requests[4].method, "DELETE");
}

TEST_F(RestClientRetryTest, EveryTryCarriesTheCallsDeadline) {
  policy_.default_timeout = seconds(30);
  const Clock::TimePoint start = clock_.Now();
  transport().Push(Answer(503, StatusBody(503, "ServiceUnavailable")));
  transport().Push(Answer(200, kConfigMap));
  ASSERT_TRUE(client().Get(res::kConfigMaps, "default", "c").ok());
  for (const RecordedRequest& r : transport().Requests()) {
    ASSERT_TRUE(r.deadline.has_value());
    EXPECT_EQ(*r.deadline, start + seconds(30)) << "the default deadline covers every try";
  }

  transport().Push(Answer(200, kConfigMap));
  const Clock::TimePoint second = clock_.Now();
  ASSERT_TRUE(client().Get(res::kConfigMaps, "default", "c", {.timeout = seconds(2)}).ok());
  EXPECT_EQ(*transport().Requests().back().deadline, second + seconds(2));

  transport().Push(Answer(200, kConfigMap));
  const Clock::TimePoint third = clock_.Now();
  ASSERT_TRUE(client()
                  .Get(res::kConfigMaps, "default", "c",
                       {.deadline = third + seconds(1), .timeout = seconds(2)})
                  .ok());
  EXPECT_EQ(*transport().Requests().back().deadline, third + seconds(1)) << "the earlier wins";
}

TEST_F(RestClientRetryTest, AHangingServerHoldsACallOnlyUntilItsDeadline) {
  transport().Hang(true);
  const Clock::TimePoint start = clock_.Now();
  Result<Object> got = client().Get(res::kConfigMaps, "default", "c", {.timeout = seconds(3)});
  EXPECT_EQ(got.status().code(), StatusCode::kTimeout) << got.status().ToString();
  EXPECT_EQ(clock_.Now() - start, seconds(3)) << "no retry after the deadline";
  EXPECT_EQ(transport().Requests().size(), 1u);
}

TEST_F(RestClientRetryTest, ABackoffThatWouldPassTheDeadlineIsNotSlept) {
  for (int i = 0; i < 5; ++i) transport().Push(Answer(503, StatusBody(503, "ServiceUnavailable")));
  const Clock::TimePoint start = clock_.Now();
  Result<Object> got =
      client().Get(res::kConfigMaps, "default", "c", {.timeout = milliseconds(250)});
  // Tries at 0 and 100 ms; the next would be at 300 ms, past the deadline.
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable) << "the real error, not Timeout";
  EXPECT_EQ(transport().Requests().size(), 2u);
  EXPECT_EQ(clock_.Now() - start, milliseconds(100));
}

TEST_F(RestClientRetryTest, CancelWakesTheRetryBackoff) {
  clock_.SetAdvanceOnWait(false);  // time stands still: only the cancel can end the backoff
  transport().Push(Answer(503, StatusBody(503, "ServiceUnavailable")));
  Cancellation cancel;
  Status result;
  std::thread call([&] {
    result = client().Get(res::kConfigMaps, "default", "c", {.cancel = &cancel}).status();
  });
  ASSERT_TRUE(Eventually([&] { return clock_.Waiters() == 1; }));  // asleep in the backoff
  cancel.Cancel();
  call.join();
  EXPECT_EQ(result.code(), StatusCode::kCancelled) << result.ToString();
  EXPECT_EQ(transport().Requests().size(), 1u);
}

TEST_F(RestClientRetryTest, CancelEndsARequestInFlight) {
  clock_.SetAdvanceOnWait(false);
  transport().Hang(true);
  Cancellation cancel;
  Status result;
  std::thread call(
      [&] { result = client().Delete(res::kConfigMaps, "default", "c", {}, {.cancel = &cancel}); });
  ASSERT_TRUE(Eventually([&] { return transport().Hanging() == 1; }));
  cancel.Cancel();
  call.join();
  EXPECT_EQ(result.code(), StatusCode::kCancelled) << result.ToString();
}

TEST_F(RestClientRetryTest, ACancelledCallSendsNothing) {
  Cancellation cancel;
  cancel.Cancel();
  EXPECT_EQ(client().Get(res::kConfigMaps, "default", "c", {.cancel = &cancel}).status().code(),
            StatusCode::kCancelled);
  EXPECT_TRUE(transport().Requests().empty());
}

TEST_F(RestClientRetryTest, ListAndRawGetCarryTheDeadlineToo) {
  transport().Push(Answer(200, R"({"kind":"ConfigMapList","metadata":{"resourceVersion":"7"},)"
                               R"("items":[{"metadata":{"name":"a","namespace":"default"}}]})"));
  const Clock::TimePoint start = clock_.Now();
  Result<ObjectList> list = client().List(res::kConfigMaps, "default", {}, {.timeout = seconds(4)});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(GetString(list->items[0], {"kind"}), "ConfigMap") << "items regain their kind";
  EXPECT_EQ(*transport().Requests().back().deadline, start + seconds(4));

  transport().Push(Answer(503, "not ready"));
  Result<HttpResponse> raw = client().RawGet("/readyz");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->status_code, 503) << "RawGet does not retry";
  EXPECT_EQ(transport().Requests().size(), 2u);
}

}  // namespace
}  // namespace vtenant::kube

// FakeTransport: an HttpTransport for unit tests of RestClient and of code
// above it, with no server and no sockets.
//
// Each request takes the next answer a test queued with Push, or else the
// handler's answer (404 without one). Every request is recorded with the
// time it was sent and the deadline it was given. Hang(true) makes requests
// behave as against a server that accepted the connection and never
// answers (hung_server.h, as FakeClient::HoldCalls): they return only when
// their deadline passes (Timeout) or their cancel fires (Cancelled), both on
// the clock given at construction. Hung or not, a request already cancelled
// or past its deadline fails at once.
// Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kube/clock.h"
#include "kube/http_transport.h"

namespace vtenant::kube {

struct RecordedRequest {
  std::string method;
  std::string path;
  std::string body;
  std::string content_type;
  Clock::TimePoint sent_at;
  std::optional<Clock::TimePoint> deadline;
};

// An answer with `code` and `body` (and a Retry-After when given).
HttpResponse Answer(int code, std::string body = "{}", int retry_after_seconds = 0);

class FakeTransport final : public HttpTransport {
 public:
  using Handler = std::function<Result<HttpResponse>(const RecordedRequest& request)>;

  // `clock` times deadlines and stamps requests; it must outlive the
  // transport.
  explicit FakeTransport(Clock* clock = &DefaultClock());
  ~FakeTransport() override;

  // Answers requests for which nothing was pushed.
  void SetHandler(Handler handler);

  // Queues the answer to the next request (FIFO). A Status is a transport
  // failure (refused, timed out), not an HTTP answer.
  void Push(Result<HttpResponse> answer);

  // See the header comment. Hang(false) lets hanging requests go on to
  // their answers.
  void Hang(bool on);

  // Requests waiting in a hang now.
  int Hanging() const;

  // Every request so far, oldest first.
  std::vector<RecordedRequest> Requests() const;

  Result<HttpResponse> Send(std::string_view method, std::string_view path_and_query,
                            std::string_view body = {}, std::string_view content_type = {},
                            const CallOptions& call = {}) override;

  // Serves no streams: Unavailable at once, or once cancelled (Cancelled)
  // while hanging.
  Result<int> Stream(std::string_view path_and_query, const ChunkHandler& on_chunk,
                     std::string* error_body, Cancellation* cancel) override;

 private:
  struct State;
  // Waits out a hang; OK when released.
  Status WaitWhileHanging(const std::string& what, std::optional<Clock::TimePoint> deadline,
                          Cancellation* cancel);

  std::shared_ptr<State> state_;
  Clock* clock_;
  uint64_t waker_;
};

}  // namespace vtenant::kube

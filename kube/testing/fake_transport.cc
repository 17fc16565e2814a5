#include "kube/testing/fake_transport.h"

#include <condition_variable>
#include <deque>
#include <mutex>

#include "kube/testing/hung_server.h"

namespace vtenant::kube {

struct FakeTransport::State {
  mutable std::mutex mu;
  std::condition_variable cv;
  std::deque<Result<HttpResponse>> pushed;
  Handler handler;
  bool hang = false;
  int hanging = 0;
  std::vector<RecordedRequest> requests;
};

HttpResponse Answer(int code, std::string body, int retry_after_seconds) {
  HttpResponse response;
  response.status_code = code;
  response.body = std::move(body);
  response.content_type = "application/json";
  response.retry_after_seconds = retry_after_seconds;
  return response;
}

FakeTransport::FakeTransport(Clock* clock) : state_(std::make_shared<State>()), clock_(clock) {
  waker_ = clock_->AddWaker([weak = std::weak_ptr<State>(state_)] {
    if (std::shared_ptr<State> s = weak.lock()) {
      std::lock_guard lock(s->mu);
      s->cv.notify_all();
    }
  });
}

FakeTransport::~FakeTransport() { clock_->RemoveWaker(waker_); }

void FakeTransport::SetHandler(Handler handler) {
  std::lock_guard lock(state_->mu);
  state_->handler = std::move(handler);
}

void FakeTransport::Push(Result<HttpResponse> answer) {
  std::lock_guard lock(state_->mu);
  state_->pushed.push_back(std::move(answer));
}

// The switch and count of FakeClient::HoldCalls, on purpose: both doubles
// hang alike (hung_server.h).
void FakeTransport::Hang(bool on) {
  std::lock_guard lock(state_->mu);
  state_->hang = on;
  state_->cv.notify_all();
}

int FakeTransport::Hanging() const {
  std::lock_guard lock(state_->mu);
  return state_->hanging;
}

std::vector<RecordedRequest> FakeTransport::Requests() const {
  std::lock_guard lock(state_->mu);
  return state_->requests;
}

Status FakeTransport::WaitWhileHanging(const std::string& what,
                                       std::optional<Clock::TimePoint> deadline,
                                       Cancellation* cancel) {
  // Registered before the lock: an already-cancelled Cancellation runs the
  // callback at once, and it takes the lock.
  CancellationRegistration on_cancel(cancel, [weak = std::weak_ptr<State>(state_)] {
    if (std::shared_ptr<State> s = weak.lock()) {
      std::lock_guard lock(s->mu);
      s->cv.notify_all();
    }
  });
  std::unique_lock lock(state_->mu);
  return WaitWhileHung(lock, state_->cv, state_->hang, &state_->hanging, *clock_,
                       deadline.value_or(Clock::TimePoint::max()), cancel, what);
}

Result<HttpResponse> FakeTransport::Send(std::string_view method, std::string_view path_and_query,
                                         std::string_view body, std::string_view content_type,
                                         const CallOptions& call) {
  RecordedRequest request{std::string(method), std::string(path_and_query),
                          std::string(body),   std::string(content_type),
                          clock_->Now(),       call.deadline};
  {
    std::lock_guard lock(state_->mu);
    state_->requests.push_back(request);
  }
  VT_RETURN_IF_ERROR(
      WaitWhileHanging(request.method + " " + request.path, call.deadline, call.cancel));
  Handler handler;
  {
    std::lock_guard lock(state_->mu);
    if (!state_->pushed.empty()) {
      Result<HttpResponse> answer = std::move(state_->pushed.front());
      state_->pushed.pop_front();
      return answer;
    }
    handler = state_->handler;
  }
  if (handler) return handler(request);
  return Answer(404, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound",)"
                     R"("code":404,"message":"FakeTransport has no answer for this request"})");
}

Result<int> FakeTransport::Stream(std::string_view path_and_query, const ChunkHandler&,
                                  std::string*, Cancellation* cancel) {
  const std::string what = "GET " + std::string(path_and_query);
  VT_RETURN_IF_ERROR(WaitWhileHanging(what, std::nullopt, cancel));
  return Unavailable(what + ": FakeTransport serves no streams");
}

}  // namespace vtenant::kube

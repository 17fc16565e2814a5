#include "kube/work_queue.h"

#include <glog/logging.h>

#include <algorithm>
#include <exception>
#include <thread>

namespace vtenant::kube {

WorkQueue::WorkQueue() : WorkQueue(Options{}) {}

WorkQueue::WorkQueue(Options options)
    : clock_(options.clock),
      rate_limiter_(options.rate_limiter ? std::move(options.rate_limiter)
                                         : NewDefaultControllerRateLimiter(*options.clock)),
      name_(std::move(options.name)) {
  // A clock that jumps must wake Get so it re-checks delayed keys. The waker
  // takes mu_ before notifying so a Get between its check and its wait cannot
  // miss the wakeup.
  waker_ = clock_->AddWaker([this] {
    std::lock_guard guard(mu_);
    ready_cv_.notify_all();
  });
}

WorkQueue::~WorkQueue() {
  ShutDown();
  clock_->RemoveWaker(waker_);
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard guard(mu_);
  AddLocked(key);
}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_ || dirty_.contains(key)) return;
  dirty_.insert(key);
  if (processing_.contains(key)) return;  // Done will queue it
  queue_.push_back(key);
  ready_cv_.notify_one();
}

void WorkQueue::AddAfter(const std::string& key, Clock::Duration delay) {
  std::lock_guard guard(mu_);
  if (shutting_down_) return;
  if (delay <= Clock::Duration::zero()) {
    AddLocked(key);
    return;
  }
  if (dirty_.contains(key) && !processing_.contains(key)) return;  // queued: sooner
  Clock::TimePoint ready_at = clock_->Now() + delay;
  auto [it, inserted] = waiting_until_.try_emplace(key, ready_at);
  if (!inserted) {
    if (it->second <= ready_at) return;
    it->second = ready_at;
  }
  waiting_.push_back(Waiting{ready_at, next_sequence_++, key});
  std::push_heap(waiting_.begin(), waiting_.end(), std::greater<>());
  CompactLocked();
  // Waiters may be sleeping until a later deadline, or with none at all.
  ready_cv_.notify_all();
}

void WorkQueue::AddRateLimited(const std::string& key) {
  if (ShuttingDown()) return;  // do not count a failure that will never be retried
  AddAfter(key, rate_limiter_->When(key));
}

void WorkQueue::Forget(const std::string& key) { rate_limiter_->Forget(key); }

int WorkQueue::NumRequeues(const std::string& key) const { return rate_limiter_->NumRequeues(key); }

bool WorkQueue::IsStale(const Waiting& entry) const {
  auto it = waiting_until_.find(entry.key);
  return it == waiting_until_.end() || it->second != entry.ready_at;
}

void WorkQueue::PromoteReadyLocked() {
  if (waiting_.empty()) return;
  Clock::TimePoint now = clock_->Now();
  while (!waiting_.empty() && waiting_.front().ready_at <= now) {
    std::pop_heap(waiting_.begin(), waiting_.end(), std::greater<>());
    Waiting next = std::move(waiting_.back());
    waiting_.pop_back();
    if (IsStale(next)) continue;
    waiting_until_.erase(next.key);
    AddLocked(next.key);
  }
}

void WorkQueue::StopWaitingLocked(const std::string& key) {
  if (waiting_until_.erase(key) > 0) CompactLocked();
}

void WorkQueue::CompactLocked() {
  // Below this a rebuild costs more than the stale entries it would free.
  constexpr size_t kMinimumToCompact = 64;
  if (waiting_.size() < kMinimumToCompact || waiting_.size() <= 2 * waiting_until_.size()) return;
  // Two entries with the key's current time can exist (a wait dropped, then
  // asked again for the same instant); keeping both is harmless, since the
  // second is skipped as stale once the first is promoted.
  std::erase_if(waiting_, [this](const Waiting& entry) { return IsStale(entry); });
  std::make_heap(waiting_.begin(), waiting_.end(), std::greater<>());
}

std::optional<std::string> WorkQueue::Get() {
  std::unique_lock lock(mu_);
  while (true) {
    PromoteReadyLocked();
    if (!queue_.empty()) break;
    if (shutting_down_) return std::nullopt;
    if (waiting_.empty()) {
      ready_cv_.wait(lock);
    } else {
      clock_->WaitUntil(ready_cv_, lock, waiting_.front().ready_at);
    }
  }
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  processing_.insert(key);
  dirty_.erase(key);
  StopWaitingLocked(key);
  return key;
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard guard(mu_);
  processing_.erase(key);
  if (dirty_.contains(key)) {
    // Re-added while processing: queue it even during shutdown, since that
    // change was accepted before shutdown began.
    queue_.push_back(key);
    ready_cv_.notify_one();
  }
  drained_cv_.notify_all();
}

size_t WorkQueue::Len() {
  std::lock_guard guard(mu_);
  PromoteReadyLocked();
  return queue_.size();
}

void WorkQueue::ShutDown() {
  std::lock_guard guard(mu_);
  shutting_down_ = true;
  waiting_until_.clear();
  waiting_ = {};
  ready_cv_.notify_all();
}

void WorkQueue::ShutDownWithDrain() {
  ShutDown();
  std::unique_lock lock(mu_);
  drained_cv_.wait(lock, [this] { return queue_.empty() && processing_.empty(); });
}

void WorkQueue::Reopen() {
  std::lock_guard guard(mu_);
  shutting_down_ = false;
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard guard(mu_);
  return shutting_down_;
}

void WorkQueue::ProcessOne(const std::string& key,
                           const std::function<Status(const std::string&)>& reconcile) {
  Status status;
  // A worker thread must survive whatever the reconciler throws (cpprestsdk
  // throws); an exception is a failure like any other and is retried.
  try {
    status = reconcile(key);
  } catch (const std::exception& e) {
    status = Internal(std::string("exception: ") + e.what());
  } catch (...) {
    status = Internal("unknown exception");
  }
  if (status.ok()) {
    Forget(key);
  } else {
    const int earlier = NumRequeues(key);
    // A first conflict is optimistic concurrency at work: the object changed
    // since the cache was read, and the retry reads the newer one. Only a
    // conflict that comes back says something is fighting over the object.
    const google::LogSeverity severity = status.code() == StatusCode::kConflict && earlier == 0
                                             ? google::GLOG_INFO
                                             : google::GLOG_WARNING;
    LOG_AT_LEVEL(severity) << name_ << (name_.empty() ? "" : ": ") << "reconciling " << key
                           << " failed (" << earlier
                           << " earlier failures), will retry: " << status.ToString();
    AddRateLimited(key);
  }
  Done(key);
}

void WorkQueue::Run(int workers, const std::function<Status(const std::string&)>& reconcile) {
  if (workers <= 0) return;
  auto work = [this, &reconcile] {
    while (std::optional<std::string> key = Get()) ProcessOne(*key, reconcile);
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (int i = 1; i < workers; ++i) threads.emplace_back(work);
  // The caller would only wait here: it is the last worker, one thread
  // (its stack and thread-local storage) fewer per queue.
  work();
  for (std::thread& thread : threads) thread.join();
}

}  // namespace vtenant::kube

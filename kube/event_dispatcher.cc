#include "kube/event_dispatcher.h"

#include <glog/logging.h>

#include "kube/informer.h"

namespace vtenant::kube {
namespace {

// Notifications one informer delivers before the next ready informer gets
// its turn, so a relist of thousands of objects does not hold up the
// events of every other informer.
constexpr size_t kBatch = 64;

}  // namespace

EventDispatcher::EventDispatcher(Clock* clock) : clock_(clock) {
  waker_ = clock_->AddWaker([this] {
    std::lock_guard wake_lock(mu_);
    cv_.notify_all();
  });
  thread_ = std::thread([this] { Loop(); });
}

EventDispatcher::~EventDispatcher() {
  {
    std::lock_guard lock(mu_);
    DCHECK(informers_.empty()) << "an informer outlives its dispatcher's thread";
    stopping_ = true;
    cv_.notify_all();
  }
  thread_.join();
  clock_->RemoveWaker(waker_);
}

void EventDispatcher::Attach(SharedInformer* informer,
                             std::optional<Clock::TimePoint> next_resync) {
  std::lock_guard lock(mu_);
  informers_[informer] = next_resync;
  cv_.notify_all();  // a new resync time to wait for
}

void EventDispatcher::Detach(SharedInformer* informer) {
  std::unique_lock lock(mu_);
  informers_.erase(informer);
  if (in_ready_.erase(informer) != 0) std::erase(ready_, informer);
  cv_.wait(lock, [&] { return delivering_ != informer; });
}

void EventDispatcher::Wake(SharedInformer* informer) {
  std::lock_guard lock(mu_);
  if (informers_.count(informer) == 0) return;  // stopping; nothing to deliver
  if (in_ready_.insert(informer).second) ready_.push_back(informer);
  cv_.notify_all();
}

void EventDispatcher::Loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (!ready_.empty()) {
      SharedInformer* informer = ready_.front();
      ready_.pop_front();
      in_ready_.erase(informer);
      delivering_ = informer;
      lock.unlock();
      const SharedInformer::DispatchTurn turn = informer->DispatchSome(kBatch);
      lock.lock();
      delivering_ = nullptr;
      if (auto it = informers_.find(informer); it != informers_.end()) {
        it->second = turn.next_resync;
        if (turn.more && in_ready_.insert(informer).second) ready_.push_back(informer);
      }
      cv_.notify_all();  // a Detach may wait for this turn to end
      continue;
    }
    // Nothing queued: resyncs that are due get a turn; otherwise sleep until
    // the next one (or a Wake).
    const Clock::TimePoint now = clock_->Now();
    std::optional<Clock::TimePoint> earliest;
    for (auto& [informer, next] : informers_) {
      if (!next) continue;
      if (*next <= now) {
        if (in_ready_.insert(informer).second) ready_.push_back(informer);
      } else if (!earliest || *next < *earliest) {
        earliest = next;
      }
    }
    if (!ready_.empty()) continue;
    if (earliest) {
      clock_->WaitUntil(cv_, lock, *earliest);
    } else {
      cv_.wait(lock);
    }
  }
}

}  // namespace vtenant::kube

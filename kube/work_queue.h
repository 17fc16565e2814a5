// WorkQueue: the queue of object keys a controller reconciles, with client-go's
// workqueue semantics.
//
//   - De-duplicating: a key added while it is queued is queued once. A key
//     added while a worker processes it is queued again when the worker calls
//     Done, so one key is never processed by two workers at once and no change
//     is lost.
//   - Delays: AddAfter queues a key later; AddRateLimited asks the rate limiter
//     how much later (per-key exponential backoff by default). Forget resets.
//     A key waits at most once: the earliest time asked for wins, and a key
//     handed out by Get no longer waits at all, because the processing that
//     follows decides afresh whether it needs a later look. Unlike client-go,
//     AddAfter then Add processes the key once, not twice; that is what lets a
//     deleted object's key leave the queue when its deletion is processed,
//     instead of lingering until a recheck it no longer needs.
//   - Shutdown: new adds and pending delays are dropped, keys already queued
//     are still handed out, and Get returns nothing once the queue is empty.
//     ShutDownWithDrain also waits for every key to be Done.
//
// Typical use:
//   WorkQueue queue;
//   informer.AddEventHandler({.on_add = [&](const ObjectPtr& o) { queue.Add(KeyOf(*o)); }});
//   std::thread workers([&] { queue.Run(2, [&](const std::string& key) {
//     return reconciler.Reconcile(key); }); });
//   ...
//   queue.ShutDownWithDrain();
//   workers.join();
//
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "kube/clock.h"
#include "kube/rate_limiter.h"

namespace vtenant::kube {

class WorkQueue {
 public:
  struct Options {
    // Time for AddAfter and rate-limited delays. Must outlive the queue.
    Clock* clock = &DefaultClock();
    // Decides AddRateLimited delays. Null means
    // NewDefaultControllerRateLimiter(*clock).
    std::unique_ptr<RateLimiter> rate_limiter;
    // Prefixes Run's log line for a failed key ("tenant: reconciling ...").
    std::string name;
  };

  WorkQueue();
  explicit WorkQueue(Options options);

  // Shuts down without draining. No thread may still be inside a member
  // function (Run must have returned).
  ~WorkQueue();

  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `key` unless it is already queued. A key being processed is queued
  // again once Done. Ignored after shutdown.
  void Add(const std::string& key);

  // Queues `key` once `delay` has passed on the clock; now if delay <= 0. When
  // `key` is already waiting, the earlier time wins; when it is already queued
  // (and not yet handed out) the call does nothing, since queued is sooner.
  // Ignored after shutdown.
  void AddAfter(const std::string& key, Clock::Duration delay);

  // AddAfter with the delay the rate limiter gives for one more failure of
  // `key`. Ignored after shutdown.
  void AddRateLimited(const std::string& key);

  // Tells the rate limiter that `key` succeeded: its backoff starts afresh.
  // Does not remove `key` from the queue.
  void Forget(const std::string& key);

  // How many failures of `key` the rate limiter counts.
  int NumRequeues(const std::string& key) const;

  // Blocks until a key is ready and returns it, marking it as processing and
  // dropping any wait it still had; the caller must call Done(key) when
  // finished. Returns nullopt once the queue is shut down and empty.
  std::optional<std::string> Get();

  // Marks `key` as no longer processing; queues it again if it was added
  // meanwhile.
  void Done(const std::string& key);

  // Keys ready to be handed out (not those still waiting for a delay).
  size_t Len();

  // Stops accepting keys and drops pending delays; wakes every Get. Keys
  // already queued are still handed out. Returns at once. Idempotent.
  void ShutDown();

  // ShutDown, then blocks until the queue is empty and every key handed out is
  // Done. Workers must keep calling Get (Run does) or it never returns while
  // keys are queued.
  void ShutDownWithDrain();

  bool ShuttingDown() const;

  // Accepts keys again after a shutdown, for a controller that stops when
  // its program loses leadership and runs again when it leads. Call only
  // once Run has returned (nothing queued or processing); the rate
  // limiter's memory of failures is kept.
  void Reopen();

  // Runs `workers` workers that Get keys and call `reconcile` on each, the
  // calling thread one of them (so `workers` - 1 new threads). A key
  // whose reconcile returns OK is forgotten by the rate limiter; any error
  // (or exception) re-adds it rate-limited and is logged once, here, with
  // the number of earlier failures: `reconcile` need not log it. A warning,
  // but for a key's first Conflict, which the retry normally cures (INFO).
  // Returns when the queue is shut down and drained and every worker has
  // exited; at once when `workers` <= 0.
  void Run(int workers, const std::function<Status(const std::string&)>& reconcile);

 private:
  // work_queue_test.cc reads waiting_ to test the delay heap's bound
  // (stale entries included, which no public figure counts).
  friend class WorkQueuePeer;

  struct Waiting {
    Clock::TimePoint ready_at;
    uint64_t sequence;  // keeps equal times in insertion order
    std::string key;
    bool operator>(const Waiting& other) const {
      return ready_at != other.ready_at ? ready_at > other.ready_at : sequence > other.sequence;
    }
  };

  void AddLocked(const std::string& key);
  // Moves keys whose delay has passed into the queue.
  void PromoteReadyLocked();
  // Drops `key`'s wait. Its heap entry becomes stale; CompactLocked removes
  // stale entries once they outnumber live ones, so a churn of short-lived
  // keys cannot grow the heap beyond twice the keys really waiting.
  void StopWaitingLocked(const std::string& key);
  void CompactLocked();
  bool IsStale(const Waiting& entry) const;
  void ProcessOne(const std::string& key,
                  const std::function<Status(const std::string&)>& reconcile);

  Clock* const clock_;
  const std::unique_ptr<RateLimiter> rate_limiter_;
  const std::string name_;
  uint64_t waker_ = 0;

  mutable std::mutex mu_;
  std::condition_variable ready_cv_;    // a key was queued, shutdown, or time jumped
  std::condition_variable drained_cv_;  // a key became Done
  std::deque<std::string> queue_;
  std::unordered_set<std::string> dirty_;       // needs processing (queued or re-added)
  std::unordered_set<std::string> processing_;  // handed out, not yet Done
  // AddAfter keys: the earliest time per key, and a min-heap (std::push_heap
  // with std::greater) that may hold stale entries for keys whose time moved
  // earlier or whose wait was dropped.
  std::unordered_map<std::string, Clock::TimePoint> waiting_until_;
  std::vector<Waiting> waiting_;
  uint64_t next_sequence_ = 0;
  bool shutting_down_ = false;
};

}  // namespace vtenant::kube

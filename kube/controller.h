// Controller: the loop around a Reconciler, like controller-runtime's.
//
// Informer events become keys in a de-duplicating, rate-limited work queue;
// workers hand each key to the Reconciler, which reads the world and moves it
// one step towards the spec. Level-triggered: a key says "look at this
// object again", never what changed, so a lost event or a restart costs a
// little latency and nothing else.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kube/informer.h"
#include "kube/metrics.h"
#include "kube/work_queue.h"

namespace vtenant::kube {

struct ReconcileResult {
  // Look again after this long even if nothing changes (e.g. waiting for an
  // external condition). Zero: only on the next event.
  std::chrono::milliseconds requeue_after{0};
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  // Reads the world for `key` ("namespace/name" or "name") and moves it one
  // step towards its spec. An error retries the key with exponential backoff;
  // the object may be gone (then clean up and return OK).
  virtual Result<ReconcileResult> Reconcile(const std::string& key) = 0;
};

// Maps an object from an informer to the keys to reconcile (e.g. a pod to
// its owning tenant).
using KeyMapper = std::function<std::vector<std::string>(const Object& object)>;

// Which of an informer's events enqueue keys. Filters cut work; a filter
// that holds back an add or a delete hides an object's coming or going from
// a level-triggered reconciler, so most pass both.
struct EventFilter {
  enum class Event { kAdd, kUpdate, kDelete };

  // Only events this returns true for (all when unset). `old` is null
  // except for updates; for a delete `object` is the last state seen.
  std::function<bool(Event event, const Object* old, const Object& object)> predicate;
};

struct ControllerOptions {
  std::string name;  // in logs and metrics: "tenant", "pod-syncer"
  int workers = 2;
  Clock* clock = &DefaultClock();
  Registry* registry = &DefaultRegistry();
};

class Controller {
 public:
  // `reconciler` must outlive the controller.
  Controller(ControllerOptions options, Reconciler& reconciler);
  ~Controller();

  // Reconciles the objects `informer` reports that pass `filter`: their own
  // key, or the keys `mapper` returns. Call before Run.
  void Watch(SharedInformer& informer, KeyMapper mapper = {}, EventFilter filter = {});

  // Queues `key` for reconciling.
  void Enqueue(const std::string& key) { queue_.Add(key); }

  // Runs the workers; blocks until Stop() and every in-flight reconcile ends.
  void Run();

  // Makes a stopped controller ready to Run again (a program that lost
  // leadership and won it back): the queue accepts keys again and every
  // object the watched informers cache is queued as its add would be, since
  // the events of the stopped time were dropped. Call only while Run is not
  // running.
  void Resume();

  // Stops taking new keys and lets in-flight reconciles finish; keys still
  // queued are dropped (level-triggered: the next run lists them again).
  // Idempotent.
  void Stop() {
    stopping_ = true;
    queue_.ShutDown();
  }

 private:
  // One Watch: the informer and its add handler, replayed by Resume.
  struct Source {
    SharedInformer* informer;
    std::function<void(const ObjectPtr&)> on_add;
  };

  Status ReconcileOne(const std::string& key);

  const ControllerOptions options_;
  Reconciler& reconciler_;
  WorkQueue queue_;
  Family<Counter>* reconciles_ = nullptr;
  Family<Histogram>* durations_ = nullptr;
  Family<Gauge>* depth_ = nullptr;
  std::vector<Source> sources_;
  std::atomic<bool> stopping_{false};
};

}  // namespace vtenant::kube

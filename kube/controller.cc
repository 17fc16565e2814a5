#include "kube/controller.h"

#include <glog/logging.h>

namespace vtenant::kube {
namespace {

WorkQueue::Options QueueOptions(Clock* clock, const std::string& name) {
  WorkQueue::Options options;
  options.clock = clock;
  options.rate_limiter = NewDefaultControllerRateLimiter(*clock);
  options.name = "controller " + name;
  return options;
}

template <typename M>
Family<M>* MustRegister(Result<Family<M>*> family) {
  CHECK(family.ok()) << family.status().ToString();
  return *family;
}

}  // namespace

Controller::Controller(ControllerOptions options, Reconciler& reconciler)
    : options_(std::move(options)),
      reconciler_(reconciler),
      queue_(QueueOptions(options_.clock, options_.name)) {
  Registry& r = *options_.registry;
  reconciles_ = MustRegister(r.AddCounter(
      "vtenant_reconcile_total", "Reconciles by controller and result.", {"controller", "result"}));
  durations_ = MustRegister(r.AddHistogram("vtenant_reconcile_duration_seconds",
                                           "Time spent in one reconcile.", {"controller"},
                                           DefaultBuckets()));
  depth_ = MustRegister(r.AddGauge("vtenant_workqueue_depth",
                                   "Keys waiting in a controller's queue.", {"controller"}));
}

Controller::~Controller() { Stop(); }

void Controller::Watch(SharedInformer& informer, KeyMapper mapper, EventFilter filter) {
  using Event = EventFilter::Event;
  auto enqueue = [this, mapper](const Object& object) {
    if (!mapper) {
      queue_.Add(KeyOf(object));
      return;
    }
    for (const std::string& key : mapper(object)) queue_.Add(key);
  };
  auto passes = [predicate = std::move(filter.predicate)](Event event, const Object* old,
                                                          const Object& object) {
    return !predicate || predicate(event, old, object);
  };
  auto on_add = [enqueue, passes](const ObjectPtr& object) {
    if (object && passes(Event::kAdd, nullptr, *object)) enqueue(*object);
  };
  sources_.push_back({&informer, on_add});
  informer.AddEventHandler({
      .on_add = on_add,
      .on_update =
          [enqueue, passes](const ObjectPtr& old, const ObjectPtr& now) {
            if (old && now && passes(Event::kUpdate, old.get(), *now)) enqueue(*now);
          },
      .on_delete =
          [enqueue, passes](const ObjectPtr& object) {
            if (object && passes(Event::kDelete, nullptr, *object)) enqueue(*object);
          },
  });
}

void Controller::Run() {
  LOG(INFO) << "controller " << options_.name << ": starting " << options_.workers << " workers";
  queue_.Run(options_.workers, [this](const std::string& key) { return ReconcileOne(key); });
  LOG(INFO) << "controller " << options_.name << ": stopped";
}

void Controller::Resume() {
  queue_.Reopen();
  stopping_ = false;
  for (const Source& source : sources_) {
    for (const ObjectPtr& object : source.informer->cache().List()) source.on_add(object);
  }
}

Status Controller::ReconcileOne(const std::string& key) {
  if (stopping_) return Status::Ok();
  depth_->WithLabelValues({options_.name}).Set(static_cast<double>(queue_.Len()));
  const auto start = std::chrono::steady_clock::now();
  Result<ReconcileResult> result = reconciler_.Reconcile(key);
  durations_->WithLabelValues({options_.name})
      .Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (!result.ok()) {
    reconciles_->WithLabelValues({options_.name, "error"}).Inc();
    return result.status();  // the queue logs it, once, and retries with backoff
  }
  reconciles_
      ->WithLabelValues({options_.name, result->requeue_after.count() > 0 ? "requeue" : "ok"})
      .Inc();
  if (result->requeue_after.count() > 0) queue_.AddAfter(key, result->requeue_after);
  return Status::Ok();
}

}  // namespace vtenant::kube

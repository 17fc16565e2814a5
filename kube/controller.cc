#include "kube/controller.h"

#include <glog/logging.h>

namespace vtenant::kube {
namespace {

WorkQueue::Options QueueOptions(Clock* clock) {
  WorkQueue::Options options;
  options.clock = clock;
  options.rate_limiter = NewDefaultControllerRateLimiter(*clock);
  return options;
}

template <typename M>
Family<M>* MustRegister(Result<Family<M>*> family) {
  CHECK(family.ok()) << family.status().ToString();
  return *family;
}

}  // namespace

Controller::Controller(ControllerOptions options, Reconciler& reconciler)
    : options_(std::move(options)), reconciler_(reconciler), queue_(QueueOptions(options_.clock)) {
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

void Controller::Watch(SharedInformer& informer, KeyMapper mapper) {
  auto enqueue = [this, mapper](const ObjectPtr& object) {
    if (!object) return;
    if (!mapper) {
      queue_.Add(KeyOf(*object));
      return;
    }
    for (const std::string& key : mapper(*object)) queue_.Add(key);
  };
  informer.AddEventHandler({
      .on_add = enqueue,
      .on_update = [enqueue](const ObjectPtr&, const ObjectPtr& now) { enqueue(now); },
      .on_delete = enqueue,
  });
}

void Controller::Run() {
  LOG(INFO) << "controller " << options_.name << ": starting " << options_.workers << " workers";
  queue_.Run(options_.workers, [this](const std::string& key) { return ReconcileOne(key); });
  LOG(INFO) << "controller " << options_.name << ": stopped";
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
    LOG(WARNING) << "controller " << options_.name << ": reconcile " << key << ": "
                 << result.status().ToString() << " (retrying with backoff)";
    return result.status();
  }
  reconciles_
      ->WithLabelValues({options_.name, result->requeue_after.count() > 0 ? "requeue" : "ok"})
      .Inc();
  if (result->requeue_after.count() > 0) queue_.AddAfter(key, result->requeue_after);
  return Status::Ok();
}

}  // namespace vtenant::kube

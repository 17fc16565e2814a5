#include "scheduler/evictor.h"

#include <glog/logging.h>

namespace vtenant::scheduler {

Evictor::Evictor(kube::Client& client, kube::EventRecorder& events, kube::Registry* registry)
    : client_(client), events_(events) {
  evictions_ = registry
                   ->AddCounter("vtenant_scheduler_evictions_total",
                                "Evictions by reason and result (refused: a PodDisruptionBudget).",
                                {"reason", "result"})
                   .value();
}

Status Evictor::Evict(const std::string& key, const std::string& reason,
                      const std::string& message) {
  auto [ns, name] = kube::SplitKey(key);
  Result<kube::Object> pod = client_.Get(kube::resources::kPods, ns, name);
  if (!pod.ok() && pod.status().code() == StatusCode::kNotFound) return Status::Ok();
  // A refusal is the answer, not a reason to retry inside the cycle: the
  // next cycle plans again without this victim (SchedulingCycle).
  Status s = client_.Evict(ns, name, {.retry_too_many_requests = false});
  const char* result = s.ok()                                     ? "ok"
                       : s.code() == StatusCode::kTooManyRequests ? "refused"
                                                                  : "error";
  evictions_->WithLabelValues({reason, result}).Inc();
  if (s.code() == StatusCode::kNotFound) return Status::Ok();
  if (pod.ok()) {
    if (s.ok())
      events_.Warning(*pod,
                      reason == "Reclaim"   ? "Reclaimed"
                      : reason == "Preempt" ? "Preempted"
                                            : reason,
                      message);
    else if (s.code() == StatusCode::kTooManyRequests)
      events_.Warning(*pod, "EvictionRefused",
                      "eviction for " + message + " refused: " + s.message() +
                          "; the scheduler will plan again");
  }
  return s;
}

}  // namespace vtenant::scheduler

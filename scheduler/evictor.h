// Evictor: reclaim and preemption through the Eviction API, so
// PodDisruptionBudgets are honoured, with an Event on each victim saying who
// took its place and why.
#pragma once

#include <string>

#include "kube/client.h"
#include "kube/event_recorder.h"
#include "kube/metrics.h"

namespace vtenant::scheduler {

class Evictor {
 public:
  Evictor(kube::Client& client, kube::EventRecorder& events,
          kube::Registry* registry = &kube::DefaultRegistry());

  // Evicts pod `key`; `reason` is the cause ("Reclaim", "Preempt",
  // "Consolidate", "StaleGang"), `message` the scheduler's explanation.
  // A PodDisruptionBudget that forbids it now comes back as
  // TooManyRequests: the caller replans. Already gone is OK.
  Status Evict(const std::string& key, const std::string& reason, const std::string& message);

 private:
  kube::Client& client_;
  kube::EventRecorder& events_;
  kube::Family<kube::Counter>* evictions_ = nullptr;
};

}  // namespace vtenant::scheduler

// SyncMetrics: what /metrics tells about one syncer. Queue depth and
// reconcile counts come from kube::Controller (vtenant_workqueue_depth,
// vtenant_reconcile_total{controller=...}).
#pragma once

#include <string_view>

#include "base/status.h"
#include "kube/metrics.h"

namespace vtenant::syncer {

class SyncMetrics {
 public:
  // Registers the families in `registry` (the same definitions twice share them).
  explicit SyncMetrics(kube::Registry& registry);

  // One write to the host or the virtual cluster: kind "Pod", operation
  // "create", "update", "delete", "status", "bind".
  void Synced(std::string_view kind, std::string_view operation);
  // A failed write or read, by status code ("Conflict", "Unavailable", ...).
  void Error(std::string_view kind, const Status& status);
  // A pod kept off the host, by refusal reason.
  void Refused(std::string_view reason);
  // Seconds from the syncer first seeing a virtual pod to its host pod existing.
  void PodSyncLatency(double seconds);

 private:
  kube::Family<kube::Counter>* synced_;
  kube::Family<kube::Counter>* errors_;
  kube::Family<kube::Counter>* refused_;
  kube::Histogram* latency_;
};

}  // namespace vtenant::syncer

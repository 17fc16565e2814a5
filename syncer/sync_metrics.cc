#include "syncer/sync_metrics.h"

#include <glog/logging.h>

namespace vtenant::syncer {
namespace {

template <typename T>
T Must(Result<T> r) {
  CHECK(r.ok()) << r.status().ToString();
  return *r;
}

}  // namespace

SyncMetrics::SyncMetrics(kube::Registry& registry)
    : synced_(Must(registry.AddCounter("vtenant_syncer_objects_synced_total",
                                       "Writes the syncer made, by kind and operation.",
                                       {"kind", "operation"}))),
      errors_(Must(registry.AddCounter("vtenant_syncer_errors_total",
                                       "Failed syncs, by kind and reason (status code).",
                                       {"kind", "reason"}))),
      refused_(Must(registry.AddCounter("vtenant_syncer_pods_refused_total",
                                        "Virtual pods kept off the host, by reason.", {"reason"}))),
      latency_(&Must(registry.AddHistogram(
                         "vtenant_syncer_pod_sync_latency_seconds",
                         "From the syncer first seeing a virtual pod to its host pod existing.", {},
                         Must(kube::ExponentialBuckets(0.001, 2, 16))))
                    ->WithLabelValues({})) {}

void SyncMetrics::Synced(std::string_view kind, std::string_view operation) {
  synced_->WithLabelValues({std::string(kind), std::string(operation)}).Inc();
}

void SyncMetrics::Error(std::string_view kind, const Status& status) {
  errors_->WithLabelValues({std::string(kind), std::string(StatusCodeName(status.code()))}).Inc();
}

void SyncMetrics::Refused(std::string_view reason) {
  refused_->WithLabelValues({std::string(reason)}).Inc();
}

void SyncMetrics::PodSyncLatency(double seconds) { latency_->Observe(seconds); }

}  // namespace vtenant::syncer

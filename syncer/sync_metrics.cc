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
      objects_refused_(Must(registry.AddCounter(
          "vtenant_syncer_objects_refused_total",
          "Virtual objects other than pods kept off the host, or written without a field they "
          "asked for, by kind and reason.",
          {"kind", "reason"}))),
      events_delayed_(
          &Must(registry.AddCounter("vtenant_syncer_events_delayed_total",
                                    "Host Events held back by the tenant's event rate limit before "
                                    "they reached the virtual cluster.",
                                    {}))
               ->WithLabelValues({})),
      latency_(&Must(registry.AddHistogram(
                         "vtenant_syncer_pod_sync_latency_seconds",
                         "From the syncer first seeing a virtual pod to its host pod existing.", {},
                         Must(kube::ExponentialBuckets(0.001, 2, 16))))
                    ->WithLabelValues({})),
      awaiting_host_(&Must(registry.AddGauge("vtenant_syncer_pods_awaiting_host",
                                             "Virtual pods seen that have no host pod yet and "
                                             "are not refused (waiting for their gang, or being "
                                             "created).",
                                             {}))
                          ->WithLabelValues({})),
      remembered_(&Must(registry.AddGauge("vtenant_syncer_deleted_objects_remembered",
                                          "Deleted host pods and PodGroups remembered so that "
                                          "Events written as they went reach the team.",
                                          {}))
                       ->WithLabelValues({})),
      dropped_(Must(registry.AddCounter(
          "vtenant_syncer_dropped_fields_total",
          "Members of virtual objects left off their host copies because no translator allows "
          "them, by kind and field.",
          {"kind", "field"}))) {}

void SyncMetrics::Synced(std::string_view kind, std::string_view operation) {
  synced_->WithLabelValues({std::string(kind), std::string(operation)}).Inc();
}

void SyncMetrics::Error(std::string_view kind, const Status& status) {
  errors_->WithLabelValues({std::string(kind), std::string(StatusCodeName(status.code()))}).Inc();
}

void SyncMetrics::Refused(std::string_view reason) {
  refused_->WithLabelValues({std::string(reason)}).Inc();
}

void SyncMetrics::PodsAwaitingHost(size_t count) {
  awaiting_host_->Set(static_cast<double>(count));
}

void SyncMetrics::DeletedObjectsRemembered(size_t count) {
  remembered_->Set(static_cast<double>(count));
}

void SyncMetrics::ObjectRefused(std::string_view kind, std::string_view reason) {
  objects_refused_->WithLabelValues({std::string(kind), std::string(reason)}).Inc();
}

void SyncMetrics::EventDelayed() { events_delayed_->Inc(); }

void SyncMetrics::PodSyncLatency(double seconds) { latency_->Observe(seconds); }

void SyncMetrics::Dropped(std::string_view kind, const DroppedFields& fields) {
  if (fields.empty()) return;
  std::lock_guard lock(mu_);
  auto seen = dropped_seen_.find(kind);
  if (seen == dropped_seen_.end()) seen = dropped_seen_.try_emplace(std::string(kind)).first;
  for (const std::string& field : fields) {
    std::string_view label = field;
    if (!seen->second.contains(field)) {
      if (seen->second.size() < kMaxDroppedFieldsPerKind) {
        seen->second.insert(field);
        LOG(WARNING) << kind << " field " << field
                     << " is not on the syncer's allowlist: left off the host object (logged "
                        "once)";
      } else {
        label = "other";
        if (seen->second.insert("other").second) {
          LOG(WARNING) << kind << ": more than " << kMaxDroppedFieldsPerKind
                       << " distinct fields dropped; further ones are counted as \"other\"";
        }
      }
    }
    dropped_->WithLabelValues({std::string(kind), std::string(label)}).Inc();
  }
}

}  // namespace vtenant::syncer

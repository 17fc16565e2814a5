// SyncMetrics: what /metrics tells about one syncer. Queue depth and
// reconcile counts come from kube::Controller (vtenant_workqueue_depth,
// vtenant_reconcile_total{controller=...}).
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/metrics.h"
#include "syncer/allowlist.h"

namespace vtenant::syncer {

class SyncMetrics {
 public:
  // Registers the families in `registry` (the same definitions twice share them).
  explicit SyncMetrics(kube::Registry& registry);

  // One write to the host or the virtual cluster: kind "Pod", operation
  // "create", "update", "delete", "status", "bind", "address",
  // "node-ports" or "delete-virtual".
  void Synced(std::string_view kind, std::string_view operation);
  // A failed write or read, by status code ("Conflict", "Unavailable", ...).
  void Error(std::string_view kind, const Status& status);
  // A pod kept off the host, by refusal reason.
  void Refused(std::string_view reason);
  // Another kind's object kept off the host, or a field of it refused
  // (the copy written without it), by reason ("ServiceTypeNotAllowed"):
  // vtenant_syncer_objects_refused_total{kind,reason}.
  void ObjectRefused(std::string_view kind, std::string_view reason);
  // A host Event held back by the tenant's event rate limit
  // (event_rate_limit.h): vtenant_syncer_events_delayed_total.
  void EventDelayed();
  // Seconds from the syncer first seeing a virtual pod to its host pod existing.
  void PodSyncLatency(double seconds);
  // How many virtual pods the syncer has seen, not refused and not yet
  // given a host pod (waiting for their gang, a create in flight):
  // vtenant_syncer_pods_awaiting_host.
  void PodsAwaitingHost(size_t count);
  // How many deleted host pods and PodGroups the event syncer remembers, so
  // that Events written as they went still reach the team
  // (event_syncer.h): vtenant_syncer_deleted_objects_remembered.
  void DeletedObjectsRemembered(size_t count);
  // Members of a virtual `kind` object its translator left off a host
  // object it wrote (allowlist.h): counted in
  // vtenant_syncer_dropped_fields_total{kind,field} and logged once per
  // (kind, field) for the life of the process. Field names come from
  // tenant input, so past kMaxDroppedFieldsPerKind distinct ones of a kind
  // the rest are counted as field "other".
  void Dropped(std::string_view kind, const DroppedFields& fields);
  static constexpr size_t kMaxDroppedFieldsPerKind = 256;

 private:
  kube::Family<kube::Counter>* synced_;
  kube::Family<kube::Counter>* errors_;
  kube::Family<kube::Counter>* refused_;
  kube::Family<kube::Counter>* objects_refused_;
  kube::Counter* events_delayed_;
  kube::Histogram* latency_;
  kube::Gauge* awaiting_host_;
  kube::Gauge* remembered_;
  kube::Family<kube::Counter>* dropped_;

  std::mutex mu_;
  std::map<std::string, std::set<std::string, std::less<>>, std::less<>> dropped_seen_;
};

}  // namespace vtenant::syncer

// EventSyncer: host Events about the tenant's host pods and host PodGroups,
// up to the virtual objects they stand for (event_translator.h says what
// the virtual Event holds).
//
// Keys are host Events ("vtenant-<t>/<name>"), from an informer on Events
// of the host namespace. An Event is carried when its involvedObject is a
// pod or a KAI PodGroup of that namespace that the syncer made for this
// tenant (one in its label-selected host caches, the UID agreeing when the
// Event names one); every other Event of the namespace (the control
// plane's, anything not synced) stays on the host. Its virtual object:
//   a host pod: the virtual pod its annotations record;
//   a host PodGroup of a virtual PodGroup: that PodGroup;
//   a host PodGroup of a workload: the workload (Job, ReplicaSet, ...) its
//     owner chain records, so `kubectl describe job` tells why a gang waits.
// A host pod or PodGroup deleted a moment ago is remembered for a while
// (HostObjectDeleted), so the Events written as it goes (the eviction that
// took it) still reach the team; a host object not seen yet is looked at
// again when it appears (EventKeysAbout). A host pod is remembered only
// while the team still has its pod: one deleted because its virtual pod is
// going leaves nothing the team would look on (its pod has left the team's
// cluster, as in vCluster), and remembering every pod a churn deletes
// would hold one entry each for kRememberDeleted.
//
// Writes are level-triggered against a cache of the virtual Events the
// syncer wrote (labelled vtenant.io/managed-by=vtenant-syncer): a host
// Event whose virtual one already says the same writes nothing, a repeat
// (count, lastTimestamp) updates it in place, and writes pass the tenant's
// EventRateLimit first (held back ones wait, and are written once, as they
// are by then). Virtual Events are never deleted by the syncer: the virtual
// API server's own TTL removes them, as the host's removes the host's.
#pragma once

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kube/clock.h"
#include "kube/controller.h"
#include "syncer/event_rate_limit.h"
#include "syncer/event_translator.h"
#include "syncer/sync_metrics.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

class EventSyncer : public kube::Reconciler {
 public:
  // `clock` times how long deleted host objects are remembered; it and the
  // rest must outlive the syncer.
  EventSyncer(SyncerInformers& informers, const SyncerConfig& config, SyncMetrics& metrics,
              EventRateLimit& limit, const kube::Clock& clock = kube::DefaultClock());

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

  // Remembers host pod or PodGroup `object` (of host kind `kind`), just
  // deleted, for kRememberDeleted, at most kMaxRemembered of them.
  void HostObjectDeleted(std::string_view kind, const rapidjson::Value& object);

  // The keys of the host Events about host object `name` of kind `kind`
  // (through the host Event cache's kInvolvedIndex).
  std::vector<std::string> EventKeysAbout(std::string_view kind, std::string_view name);

  static constexpr auto kRememberDeleted = std::chrono::minutes(15);
  static constexpr size_t kMaxRemembered = 4096;

 private:
  // What a host object of this tenant stands for.
  struct Known {
    std::string host_uid;
    VirtualTarget target;
  };
  struct Remembered {
    Known known;
    kube::Clock::TimePoint at;
  };

  // The record of host object `name` of `kind` ("Pod", "PodGroup") from the
  // caches, else from what was remembered of a deleted one; with `uid`
  // non-empty, only the object of that UID.
  std::optional<Known> Resolve(std::string_view kind, std::string_view name, std::string_view uid);
  // What a cached or deleted host object stands for; nullopt when it does
  // not record it.
  static std::optional<Known> KnownOf(std::string_view kind, const rapidjson::Value& object);
  // The team's "<ns>/<name>" of a host name of this tenant's pods,
  // PodGroups and copies (for messages).
  std::optional<std::string> TeamNameOf(std::string_view host_name);
  // Forgets what is older than kRememberDeleted; mu_ held.
  void ForgetOld(kube::Clock::TimePoint now);
  // Whether virtual pod `pod` is in the cache, the same (by UID when it
  // names one) and not being deleted.
  bool TeamStillHas(const VirtualTarget& pod);

  SyncerInformers& informers_;
  const SyncerConfig& config_;
  SyncMetrics& metrics_;
  EventRateLimit& limit_;
  const kube::Clock& clock_;
  const EventTranslator translator_;

  std::mutex mu_;
  std::map<std::string, Remembered, std::less<>> deleted_;  // "<kind>/<name>"
  std::deque<std::pair<kube::Clock::TimePoint, std::string>> deleted_order_;
};

}  // namespace vtenant::syncer

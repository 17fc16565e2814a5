// Syncer: one tenant's syncer, assembled on a kube::Manager. It asks the
// Manager's two clusters (the host, the Manager's primary, where the
// leader Lease lives; the virtual cluster, added with AddCluster) for its
// informers, and adds the reconcilers (pods, ConfigMaps, Secrets, PVCs,
// ResourceClaims and their templates, Services and their addresses,
// Endpoints and EndpointSlices, Nodes, PodGroups, and host Events up) as
// the Manager's controllers, each watching the informers whose events
// concern its keys. Without device classes it watches no claims, and
// deletes once the copies made while its Tenant listed some.
//
// The Manager runs it all: informers on every replica, so a standby keeps
// warm caches; controllers only while leading, and again from a replay of
// the caches after a lost Lease is won back (SyncerManagerOptions turns
// that on), which is what carries the syncer through an API server outage
// that costs the Lease. Both API servers are probed in the background and
// /readyz fails while either does not answer.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kube/cancellation.h"
#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "kube/manager.h"
#include "kube/wall_time.h"
#include "syncer/claim_translator.h"
#include "syncer/copy_syncer.h"
#include "syncer/data_translator.h"
#include "syncer/device_claim_translator.h"
#include "syncer/endpoint_addresses.h"
#include "syncer/endpoint_slice_translator.h"
#include "syncer/endpoints_translator.h"
#include "syncer/event_rate_limit.h"
#include "syncer/event_syncer.h"
#include "syncer/node_syncer.h"
#include "syncer/pod_syncer.h"
#include "syncer/podgroup_syncer.h"
#include "syncer/podgroup_validator.h"
#include "syncer/service_address_syncer.h"
#include "syncer/service_translator.h"
#include "syncer/sync_metrics.h"
#include "syncer/syncer_config.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

struct SyncerOptions {
  int pod_workers = 8;
  int other_workers = 2;
  // How often both API servers are probed for readiness.
  std::chrono::milliseconds probe_period = std::chrono::seconds(2);
  // Calendar time, against which service-account tokens expire.
  kube::WallClock wall_clock = kube::SystemNow;
  // The longest a running pod's token goes unlooked-at (PodSyncer).
  std::chrono::milliseconds token_recheck = std::chrono::minutes(10);
  // How fast host Events may reach the virtual cluster.
  EventRateLimitOptions event_rate_limit;
};

// What a syncer's Manager is made with (main.cc and the tests start from
// it): the name "vtenant-syncer"; informer defaults that keep one syncer per
// tenant small (caches without managedFields, held deflated, events on one
// shared thread) and revisit every cached object each `resync_period`; and,
// with `leader_elect`, the Lease "vtenant-syncer-<tenant>" in the host
// namespace, competed for again when lost.
kube::ManagerOptions SyncerManagerOptions(
    const SyncerConfig& config, bool leader_elect,
    std::chrono::milliseconds resync_period = std::chrono::minutes(10));

class Syncer {
 public:
  // Adds the informers, controllers, the API server probe and its ready
  // check to `manager`, whose primary cluster is the host; `virtual_cluster`
  // is the tenant's virtual API server, added with AddCluster. Call before
  // manager.Run(). The manager must outlive the syncer's use, and the
  // syncer the manager's Run.
  Syncer(kube::Manager& manager, kube::ClusterHandle& virtual_cluster, SyncerConfig config,
         SyncerOptions options = {});

  // OK when both API servers answered the last probe (the Manager's own
  // checks cover the caches and the Lease).
  Status ServersAnswer() const;

  SyncerInformers& informers() { return informers_; }

 private:
  // An informer whose events are keys of a controller: their own key, or
  // those the mapper returns.
  using Source = std::pair<kube::SharedInformer*, kube::KeyMapper>;

  void ProbeLoop(kube::Cancellation& stop);
  // Once leading, and only when the Tenant lists no device classes:
  // DeleteDeviceClaimCopies (device_claim_sweep.h), tried again with
  // backoff (kSweepFirstRetry doubling up to kSweepLastRetry) until it
  // succeeds or `stop` fires.
  void SweepDeviceClaimCopies(kube::Cancellation& stop);
  static constexpr std::chrono::milliseconds kSweepFirstRetry{500};
  static constexpr std::chrono::milliseconds kSweepLastRetry{30'000};
  void Wire();
  // The Endpoints copier's translator: Endpoints of selector-less Services.
  CopyTranslator SelectorlessEndpoints();
  // Virtual Service ns/`name` from the cache, else (absent there, perhaps
  // only while it is created again) from the virtual API server.
  kube::ObjectPtr VirtualService(std::string_view ns, std::string_view name);
  // Whether virtual Service ns/`name` exists, selects no pods and has a
  // host copy to carry endpoints for (it is not refused).
  bool TakesHandWrittenEndpoints(std::string_view ns, std::string_view name);
  // The host's Nodes and the tenant's host pods as the caches hold them,
  // for judging endpoint addresses (endpoint_addresses.h).
  HostNetwork Network();
  // Adds a controller named `name` running `reconciler` with `workers`,
  // watching `sources`.
  void AddController(std::string name, kube::Reconciler& reconciler, int workers,
                     std::vector<Source> sources);
  // The EndpointSlice copier's: hand-written slices of selector-less Services.
  CopyTranslator HandWrittenEndpointSlices();

  kube::Manager& manager_;
  const SyncerConfig config_;
  const SyncerOptions options_;
  SyncerInformers informers_;
  SyncMetrics metrics_;
  kube::EventRecorder events_;
  DataTranslator data_translator_;
  ClaimTranslator claim_translator_;
  DeviceClaimTranslator device_claim_translator_;
  ServiceTranslator service_translator_;
  EndpointsTranslator endpoints_translator_;
  EndpointSliceTranslator endpoint_slice_translator_;
  CopySyncer config_maps_;
  CopySyncer secrets_;
  CopySyncer claims_;
  // ResourceClaims and their templates, only when the Tenant lists device
  // classes (null otherwise: pods that name them are refused).
  std::unique_ptr<CopySyncer> resource_claims_;
  std::unique_ptr<CopySyncer> claim_templates_;
  CopySyncer services_;
  ServiceAddressSyncer service_addresses_;
  CopySyncer endpoints_;        // of selector-less Services only
  CopySyncer endpoint_slices_;  // hand-written, of selector-less Services only
  NodeSyncer nodes_;
  PodGroupSyncer pod_groups_;
  PodGroupValidator pod_group_validator_;
  PodSyncer pods_;
  EventRateLimit event_limit_;
  EventSyncer events_up_;

  std::atomic<bool> virtual_reachable_{false};
  std::atomic<bool> host_reachable_{false};
};

}  // namespace vtenant::syncer

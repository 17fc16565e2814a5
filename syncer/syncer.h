// Syncer: one tenant's syncer, assembled. It owns the informers of both
// clusters, the reconcilers (pods, ConfigMaps, Secrets, PVCs, Services,
// Endpoints and EndpointSlices, Nodes, PodGroups) and their controllers,
// and wires each informer to the controllers whose keys it concerns.
//
// Informers run from Start() on, so a standby replica keeps warm caches;
// controllers run only between StartControllers() and StopControllers()
// (while leading), and may start again after stopping (leadership lost to
// an API server outage and won back). Each start makes fresh controllers
// and queues every cached object of every source, the relist a restart
// would do. Both API servers are probed in the background: Ready() says
// whether the caches are synced and both servers answered recently.
//
// On kube::Manager (see main.cc for why not yet), Start/StartControllers
// become its Run and the informers come from its two ClusterHandles.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/cancellation.h"
#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "kube/wall_time.h"
#include "syncer/copy_syncer.h"
#include "syncer/endpoint_slice_translator.h"
#include "syncer/node_syncer.h"
#include "syncer/object_translators.h"
#include "syncer/pod_syncer.h"
#include "syncer/podgroup_syncer.h"
#include "syncer/sync_metrics.h"
#include "syncer/syncer_config.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

struct SyncerOptions {
  int pod_workers = 8;
  int other_workers = 2;
  // Every cached object is revisited this often, in case an event was missed.
  std::chrono::milliseconds resync_period = std::chrono::minutes(10);
  // How often both API servers are probed for readiness.
  std::chrono::milliseconds probe_period = std::chrono::seconds(2);
  kube::Registry* registry = &kube::DefaultRegistry();
  // Calendar time, against which service-account tokens expire.
  kube::WallClock wall_clock = kube::SystemNow;
};

class Syncer {
 public:
  // Both clients must outlive the syncer.
  Syncer(kube::Client& virtual_client, kube::Client& host_client, SyncerConfig config,
         SyncerOptions options = {});
  ~Syncer();

  // Starts the informers and the probes; returns at once.
  Status Start();
  // Waits until both clusters' caches hold a first list.
  bool WaitForSynced(std::chrono::milliseconds timeout) {
    return informers_.WaitForSynced(timeout);
  }

  // Runs the controllers on threads of their own (call after the caches
  // synced: their first keys are every object of both sides, which is the
  // relist that makes a restart converge). Idempotent while running.
  void StartControllers();
  // Stops the controllers and waits for reconciles in flight. Idempotent.
  void StopControllers();
  // Everything stops. Idempotent.
  void Stop();

  // OK when the caches are synced and both API servers answered the last probe.
  Status Ready() const;

  const SyncerConfig& config() const { return config_; }
  SyncerInformers& informers() { return informers_; }

 private:
  // One controller: its reconciler and the informers whose events map to its keys.
  struct Route {
    std::string name;
    kube::Reconciler* reconciler;
    int workers;
    std::vector<std::pair<kube::SharedInformer*, kube::KeyMapper>> sources;
  };

  void ProbeLoop();
  void Wire();
  // The Endpoints copier's translator: Endpoints of selector-less Services.
  CopyTranslator SelectorlessEndpoints();
  // The EndpointSlice copier's: hand-written slices of selector-less Services.
  CopyTranslator HandWrittenEndpointSlices();
  // Adds `route`, subscribing to its sources once for the syncer's life.
  void AddRoute(Route route);
  // Queues `key` on route `index`'s controller, if controllers are running.
  void Enqueue(size_t index, const std::string& key);

  const SyncerConfig config_;
  const SyncerOptions options_;
  SyncerInformers informers_;
  SyncMetrics metrics_;
  kube::EventRecorder events_;
  DataTranslator data_translator_;
  ClaimTranslator claim_translator_;
  ServiceTranslator service_translator_;
  EndpointsTranslator endpoints_translator_;
  EndpointSliceTranslator endpoint_slice_translator_;
  CopySyncer config_maps_;
  CopySyncer secrets_;
  CopySyncer claims_;
  CopySyncer services_;
  CopySyncer endpoints_;        // of selector-less Services only
  CopySyncer endpoint_slices_;  // hand-written, of selector-less Services only
  NodeSyncer nodes_;
  PodGroupSyncer pod_groups_;
  PodSyncer pods_;

  std::vector<Route> routes_;
  std::mutex lifecycle_mu_;           // serialises StartControllers and StopControllers
  std::shared_mutex controllers_mu_;  // guards controllers_ against Enqueue
  std::vector<std::unique_ptr<kube::Controller>> controllers_;  // one per route while running
  std::vector<std::thread> controller_threads_;

  kube::Cancellation stop_probe_;
  std::thread probe_;
  std::atomic<bool> virtual_reachable_{false};
  std::atomic<bool> host_reachable_{false};
  std::atomic<bool> started_{false};
};

}  // namespace vtenant::syncer

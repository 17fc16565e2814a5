// ServiceAddressSyncer: one address per Service. The host copy of a
// virtual Service has the cluster IP the tenant's pods reach it at (the
// environment the syncer gives them); the virtual Service must have the
// same (and the host's node ports), so `kubectl get svc` in the team's
// cluster, the pods' <SVC>_SERVICE_HOST variables and the host copy's DNS
// name all give one address.
//
// Mostly there is nothing to do: the virtual API server shares the host's
// Service range (the operator starts it with --service-cidr), and the host
// copy asks for the virtual Service's own address (service_translator.h).
// When the host gave the copy another (the asked one was held there, or was
// not asked for: a static-band address, or a syncer without
// --service-cidr), the virtual Service takes the host's. A cluster IP
// cannot change in place, so the virtual Service is deleted and created
// again with it (spec.clusterIP, clusterIPs; everything else as the team
// wrote it; a new UID), as vCluster does. The host copy is not touched: its
// address is the one being taken (and CopySyncer confirms with the virtual
// API server before deleting a copy whose Service its cache has lost for a
// moment).
//
// When the address cannot be taken (another virtual Service holds it, the
// virtual API server refuses it: outside its range, or the Service has
// finalizers, which would leave it terminating), the Service keeps its own
// (put back as it was, at a new address if its own was taken meanwhile), a
// Warning Event ClusterIPNotTaken says why, and that address is not tried
// again until the Service is created anew (a new UID) or its host copy's
// address changes (a Service held by another is looked at again after a
// while: the holder may move). Headless Services have no address to take;
// node ports are set in place when only they differ.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "syncer/sync_metrics.h"
#include "syncer/syncer_config.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

inline constexpr char kClusterIPNotTaken[] = "ClusterIPNotTaken";

class ServiceAddressSyncer : public kube::Reconciler {
 public:
  // Keys are virtual Services ("namespace/name"); `events` records on them.
  ServiceAddressSyncer(SyncerInformers& informers, const SyncerConfig& config, SyncMetrics& metrics,
                       kube::EventRecorder& events);

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

  // Whether virtual Service `key` is being deleted and created again now:
  // its host copy, whose address it takes, must stay.
  bool Recreating(const std::string& key);

  // `virt` as it would be with `host`'s cluster IP and node ports: metadata
  // without what the server sets (uid, resourceVersion, creationTimestamp,
  // managedFields, generation), no status. For a create.
  static kube::Object WithHostAddress(const rapidjson::Value& virt, const rapidjson::Value& host);

 private:
  // Deletes `virt` and creates it again with `host`'s address; when the
  // create is refused, creates it again as it was and says why.
  Status Recreate(const rapidjson::Value& virt, const rapidjson::Value& host);
  // Tells `message` on the Service once per (key, address).
  void Explain(const rapidjson::Value& virt, const std::string& address,
               const std::string& message);

  SyncerInformers& informers_;
  const SyncerConfig& config_;
  SyncMetrics& metrics_;
  kube::EventRecorder& events_;

  std::mutex mu_;
  // key → "<virtual UID>/<host address>" that could not be taken: not
  // tried again until one of them changes.
  std::map<std::string, std::string> refused_;
  std::set<std::string> recreating_;
  // key → what was last told on it, so each explanation is told once.
  std::map<std::string, std::string> told_;
};

}  // namespace vtenant::syncer

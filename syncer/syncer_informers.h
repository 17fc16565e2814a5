// SyncerInformers: the informer caches of both clusters the syncer works
// between, shared by its reconcilers.
//
//   virtual (all namespaces): pods, services, configmaps, secrets, PVCs,
//     namespaces, nodes, replicasets, jobs, statefulsets, and KAI PodGroups
//     (which do not count for HasSynced: the CRD may come late or never);
//   host (the tenant's host namespace, objects labelled managed-by
//     vtenant-syncer and vtenant.io/tenant=<tenant>): pods, services,
//     configmaps, secrets, PVCs, KAI PodGroups; and host nodes;
//   with --sync-endpoints, Endpoints and EndpointSlices on both sides.
//
// Indexes: virtual pods by "node" (spec.nodeName), "reference"
// (pod_references.h) and "owner-uid" (each ownerReference's uid and
// "podgroup/<ns>/<name>" of a pod-group-name annotation); host pods by
// "pod-group" (pod-group-name) and "node" (spec.nodeName); with
// --sync-endpoints, virtual EndpointSlices by "service" ("ns/<its
// kubernetes.io/service-name>").
//
// All informers deliver their events on one shared thread
// (kube::EventDispatcher): handlers only queue keys, and one thread instead
// of 18 saves the process 17 stacks and their thread-local buffers.
//
// Every cache drops managedFields and holds objects as deflated JSON text
// (kube::CacheStorage::kCompressedJsonText): each read inflates and parses
// a fresh copy, so ask CountByIndex rather than ByIndex when only "is
// anything there" matters.
//
// On kube::Manager this becomes two ClusterHandles' informer factories; the
// reconcilers only need the caches.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "kube/event_dispatcher.h"
#include "kube/informer.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

inline constexpr char kNodeIndex[] = "node";
inline constexpr char kReferenceIndex[] = "reference";
inline constexpr char kOwnerUidIndex[] = "owner-uid";
inline constexpr char kPodGroupIndex[] = "pod-group";
inline constexpr char kServiceIndex[] = "service";

class SyncerInformers {
 public:
  // Both clients must outlive this. `options` gives the resync period,
  // backoff and clock of every informer (namespace and selectors are set
  // here); without a transform of its own, each cache drops managedFields.
  // The options' dispatcher is replaced by this object's own.
  SyncerInformers(kube::Client& virtual_client, kube::Client& host_client,
                  const SyncerConfig& config, kube::InformerOptions options = {});
  ~SyncerInformers() { Stop(); }

  // The informer of `type` on that side; aborts for a type not listed above
  // (a programming error).
  kube::SharedInformer& Virtual(const kube::ResourceType& type);
  kube::SharedInformer& Host(const kube::ResourceType& type);

  // Starts every informer. Handlers should be added first.
  Status Run();
  // Whether every informer has listed once.
  bool HasSynced() const;
  bool WaitForSynced(std::chrono::milliseconds timeout) const;
  void Stop();

  kube::Client& virtual_client() { return virtual_client_; }
  kube::Client& host_client() { return host_client_; }

 private:
  static std::string Key(const kube::ResourceType& type) {
    return type.group + "/" + type.resource;
  }

  kube::Client& virtual_client_;
  kube::Client& host_client_;
  // Declared before the informers, so it outlives them.
  kube::EventDispatcher dispatcher_;
  std::map<std::string, std::unique_ptr<kube::SharedInformer>> virtual_;
  std::map<std::string, std::unique_ptr<kube::SharedInformer>> host_;
  // Keys of virtual informers HasSynced and WaitForSynced do not wait for.
  std::set<std::string> optional_virtual_;
};

}  // namespace vtenant::syncer

// SyncerInformers: the informer caches of both clusters the syncer works
// between, shared by its reconcilers.
//
//   virtual (all namespaces): pods, services, configmaps, secrets, PVCs,
//     namespaces, nodes, replicasets, jobs, statefulsets;
//   host (the tenant's host namespace, objects labelled managed-by
//     vtenant-syncer and vtenant.io/tenant=<tenant>): pods, services,
//     configmaps, secrets, PVCs, KAI PodGroups; and host nodes.
//
// Indexes: virtual pods by "node" (spec.nodeName), "reference"
// (pod_references.h) and "owner-uid" (each ownerReference's uid and
// "podgroup/<ns>/<name>" of a pod-group-name annotation); host pods by
// "pod-group" (pod-group-name) and "node" (spec.nodeName).
//
// Every cache drops managedFields and holds objects as JSON text
// (kube::CacheStorage::kJsonText): each read parses a fresh copy, so ask
// CountByIndex rather than ByIndex when only "is anything there" matters.
//
// On kube::Manager this becomes two ClusterHandles' informer factories; the
// reconcilers only need the caches.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "kube/informer.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

inline constexpr char kNodeIndex[] = "node";
inline constexpr char kReferenceIndex[] = "reference";
inline constexpr char kOwnerUidIndex[] = "owner-uid";
inline constexpr char kPodGroupIndex[] = "pod-group";

class SyncerInformers {
 public:
  // Both clients must outlive this. `options` gives the resync period,
  // backoff and clock of every informer (namespace and selectors are set
  // here); without a transform of its own, each cache drops managedFields.
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
  std::map<std::string, std::unique_ptr<kube::SharedInformer>> virtual_;
  std::map<std::string, std::unique_ptr<kube::SharedInformer>> host_;
};

}  // namespace vtenant::syncer

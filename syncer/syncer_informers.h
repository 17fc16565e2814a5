// SyncerInformers: the informer caches of both clusters the syncer works
// between, shared by its reconcilers.
//
//   virtual (all namespaces): pods, services, configmaps, secrets, PVCs,
//     namespaces, nodes, and the owners gangs are read from (replicasets,
//     deployments, jobs, cronjobs, statefulsets), and KAI PodGroups,
//     JobSets and LeaderWorkerSets (asked for with GetOptional: the CRD may
//     come late or never, so it holds back neither the caches' sync nor
//     /readyz);
//   host (the tenant's host namespace, objects labelled managed-by
//     vtenant-syncer and vtenant.io/tenant=<tenant>): pods, services,
//     configmaps, secrets, PVCs, KAI PodGroups; and host nodes;
//   Events: the host namespace's (all of them: host components do not
//     label their Events; the event syncer picks those about its objects),
//     and the virtual cluster's that the syncer wrote (labelled
//     vtenant.io/managed-by=vtenant-syncer);
//   with --sync-endpoints, Endpoints and EndpointSlices on both sides;
//   with --allowed-device-classes, ResourceClaims and ResourceClaimTemplates
//   on both sides.
//
// Indexes: virtual pods by "node" (spec.nodeName), "reference"
// (pod_references.h) and "owner-uid" (each ownerReference's uid,
// "podgroup/<ns>/<name>" of a pod-group-name annotation and
// "podgang/<ns>/<name>" of a Grove pod's grove.io/podgang label), virtual Jobs
// and StatefulSets by "owner-uid" too (a JobSet's, a LeaderWorkerSet's);
// host pods by "pod-group" (pod-group-name),
// "node" (spec.nodeName) and "pod-address" (kube/pod_address.h: the pods'
// DNS answers only this tenant's pods, known by address); host Events by
// "involved" ("<kind>/<name>" of their involvedObject); with
// --sync-endpoints, virtual EndpointSlices by "service" ("ns/<its
// kubernetes.io/service-name>").
//
// The informers come from the two clusters' InformerFactory (those of the
// syncer's kube::Manager), whose defaults (SyncerManagerOptions in
// syncer.h) keep one syncer per tenant small:
//   - all informers deliver their events on one shared thread
//     (kube::EventDispatcher): handlers only queue keys, and one thread
//     instead of one per informer (twenty or more) saves the process their
//     stacks and thread-local buffers;
//   - every cache drops managedFields and holds objects as deflated JSON
//     text (kube::CacheStorage::kCompressedJsonText): each read inflates and
//     parses a fresh copy, so ask CountByIndex rather than ByIndex when only
//     "is anything there" matters.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "kube/informer.h"
#include "kube/informer_factory.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// The names of the indexes above, as ByIndex and CountByIndex take them.
inline constexpr char kNodeIndex[] = "node";
inline constexpr char kReferenceIndex[] = "reference";
inline constexpr char kOwnerUidIndex[] = "owner-uid";
inline constexpr char kPodGroupIndex[] = "pod-group";
inline constexpr char kServiceIndex[] = "service";

// The "owner-uid" values of a virtual pod that names its gang rather than
// being owned by it: its PodGroup `name` (pod-group-name) or its Grove
// PodGang `name` (grove.io/podgang), in namespace `ns`. The index writes
// them and the PodGroup syncer asks by them.
std::string NamedPodGroupKey(std::string_view ns, std::string_view name);
std::string NamedPodGangKey(std::string_view ns, std::string_view name);
inline constexpr char kInvolvedIndex[] = "involved";

class SyncerInformers {
 public:
  // Asks each factory for the informers listed above (namespace and
  // selectors set here, every other option the factory's) and adds the
  // indexes. Both factories must outlive this; they start and stop the
  // informers (the Manager does).
  SyncerInformers(kube::InformerFactory& virtual_informers, kube::InformerFactory& host_informers,
                  const SyncerConfig& config);

  // The informer of `type` on that side; aborts for a type not listed above
  // (a programming error).
  kube::SharedInformer& Virtual(const kube::ResourceType& type);
  kube::SharedInformer& Host(const kube::ResourceType& type);

  kube::Client& virtual_client() { return virtual_informers_.client(); }
  kube::Client& host_client() { return host_informers_.client(); }

 private:
  static std::string Key(const kube::ResourceType& type) {
    return type.group + "/" + type.resource;
  }

  kube::InformerFactory& virtual_informers_;
  kube::InformerFactory& host_informers_;
  // Owned by the factories.
  std::map<std::string, kube::SharedInformer*> virtual_;
  std::map<std::string, kube::SharedInformer*> host_;
};

}  // namespace vtenant::syncer

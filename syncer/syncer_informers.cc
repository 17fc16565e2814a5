#include "syncer/syncer_informers.h"

#include <glog/logging.h>

#include "kai/grove_gang.h"
#include "kube/pod_address.h"
#include "syncer/endpoint_slice_translator.h"
#include "syncer/names.h"
#include "syncer/pod_references.h"
#include "syncer/resources.h"

namespace vtenant::syncer {

std::string NamedPodGroupKey(std::string_view ns, std::string_view name) {
  return "podgroup/" + std::string(ns) + "/" + std::string(name);
}

std::string NamedPodGangKey(std::string_view ns, std::string_view name) {
  return "podgang/" + std::string(ns) + "/" + std::string(name);
}

namespace {

std::vector<std::string> NodeOf(const kube::Object& pod) {
  std::string_view node = kube::GetString(pod, {"spec", "nodeName"});
  if (node.empty()) return {};
  return {std::string(node)};
}

std::vector<std::string> OwnerUidsOf(const kube::Object& pod) {
  std::vector<std::string> values;
  const rapidjson::Value* refs = kube::Find(pod, {"metadata", "ownerReferences"});
  if (refs != nullptr && refs->IsArray()) {
    for (const rapidjson::Value& ref : refs->GetArray()) {
      std::string_view uid = kube::GetString(ref, {"uid"});
      if (!uid.empty()) values.emplace_back(uid);
    }
  }
  if (auto group = kube::Annotation(pod, kPodGroupAnnotation))
    values.push_back(NamedPodGroupKey(kube::Namespace(pod), *group));
  // A Grove pod's gang is its PodGang's, which owns none of its pods.
  if (auto gang = kube::Label(pod, kai::kPodGangLabel))
    values.push_back(NamedPodGangKey(kube::Namespace(pod), *gang));
  return values;
}

std::vector<std::string> PodGroupOf(const kube::Object& pod) {
  auto group = kube::Annotation(pod, kPodGroupAnnotation);
  if (!group) return {};
  return {std::string(*group)};
}

// "ns/service" of the Service a slice belongs to.
std::vector<std::string> ServiceOfSlice(const kube::Object& slice) {
  std::optional<std::string_view> service = kube::Label(slice, kServiceNameLabel);
  if (!service || service->empty()) return {};
  return {kube::MakeKey(kube::Namespace(slice), *service)};
}

// "<kind>/<name>" of the object an Event is about.
std::vector<std::string> InvolvedOf(const kube::Object& event) {
  std::string_view kind = kube::GetString(event, {"involvedObject", "kind"});
  std::string_view name = kube::GetString(event, {"involvedObject", "name"});
  if (kind.empty() || name.empty()) return {};
  return {std::string(kind) + "/" + std::string(name)};
}

}  // namespace

SyncerInformers::SyncerInformers(kube::InformerFactory& virtual_informers,
                                 kube::InformerFactory& host_informers, const SyncerConfig& config)
    : virtual_informers_(virtual_informers), host_informers_(host_informers) {
  const kube::InformerOptions everywhere;
  for (const kube::ResourceType* type :
       {&kube::resources::kPods, &kube::resources::kServices, &kube::resources::kConfigMaps,
        &kube::resources::kSecrets, &resources::kPersistentVolumeClaims,
        &kube::resources::kNamespaces, &kube::resources::kNodes, &resources::kReplicaSets,
        &kube::resources::kJobs, &resources::kStatefulSets, &kube::resources::kDeployments,
        &resources::kCronJobs}) {
    virtual_[Key(*type)] = &virtual_informers.Get(*type, everywhere);
  }
  kube::InformerOptions owned;
  owned.ns = config.host_namespace;
  owned.label_selector = std::string(kManagedByLabel) + "=" + kManagedByValue + "," + kTenantLabel +
                         "=" + config.tenant;
  for (const kube::ResourceType* type :
       {&kube::resources::kPods, &kube::resources::kServices, &kube::resources::kConfigMaps,
        &kube::resources::kSecrets, &resources::kPersistentVolumeClaims,
        &kube::resources::kPodGroups}) {
    host_[Key(*type)] = &host_informers.Get(*type, owned);
  }
  if (config.sync_endpoints) {
    for (const kube::ResourceType* type :
         {&kube::resources::kEndpoints, &resources::kEndpointSlices}) {
      virtual_[Key(*type)] = &virtual_informers.Get(*type, everywhere);
      host_[Key(*type)] = &host_informers.Get(*type, owned);
    }
    CHECK(Virtual(resources::kEndpointSlices).AddIndexer(kServiceIndex, ServiceOfSlice).ok());
  }
  if (!config.allowed_device_classes.empty()) {
    for (const kube::ResourceType* type :
         {&resources::kResourceClaims, &resources::kResourceClaimTemplates}) {
      virtual_[Key(*type)] = &virtual_informers.Get(*type, everywhere);
      host_[Key(*type)] = &host_informers.Get(*type, owned);
    }
  }
  host_[Key(kube::resources::kNodes)] = &host_informers.Get(kube::resources::kNodes, everywhere);
  host_[Key(kube::resources::kEvents)] =
      &host_informers.Get(kube::resources::kEvents, {.ns = config.host_namespace});
  kube::InformerOptions written_by_syncer;
  written_by_syncer.label_selector = std::string(kManagedByLabel) + "=" + kManagedByValue;
  virtual_[Key(kube::resources::kEvents)] =
      &virtual_informers.Get(kube::resources::kEvents, written_by_syncer);
  // KAI's PodGroup CRD reaches a virtual cluster after its API server is up
  // (the operator installs it), or never, when the syncer runs by hand: the
  // informer lists until it is there, and holds back neither the caches'
  // sync nor /readyz.
  virtual_[Key(kube::resources::kPodGroups)] =
      &virtual_informers.GetOptional(kube::resources::kPodGroups, everywhere);
  // JobSets and LeaderWorkerSets likewise: a team installs their CRDs, or
  // never does.
  for (const kube::ResourceType* type : {&resources::kJobSets, &resources::kLeaderWorkerSets})
    virtual_[Key(*type)] = &virtual_informers.GetOptional(*type, everywhere);

  kube::SharedInformer& pods = Virtual(kube::resources::kPods);
  CHECK(pods.AddIndexer(kNodeIndex, NodeOf).ok());
  CHECK(pods.AddIndexer(kReferenceIndex, ReferenceIndexValues).ok());
  CHECK(pods.AddIndexer(kOwnerUidIndex, OwnerUidsOf).ok());
  // A JobSet's pods belong to it through its Jobs, a LeaderWorkerSet's
  // leaders through its StatefulSet.
  CHECK(Virtual(kube::resources::kJobs).AddIndexer(kOwnerUidIndex, OwnerUidsOf).ok());
  CHECK(Virtual(resources::kStatefulSets).AddIndexer(kOwnerUidIndex, OwnerUidsOf).ok());
  CHECK(Host(kube::resources::kPods).AddIndexer(kPodGroupIndex, PodGroupOf).ok());
  CHECK(Host(kube::resources::kPods).AddIndexer(kNodeIndex, NodeOf).ok());
  // The pods' DNS answers only this tenant's pods, known by address.
  CHECK(Host(kube::resources::kPods).AddIndexer(kube::kPodAddressIndex, kube::PodAddressesOf).ok());
  CHECK(Host(kube::resources::kEvents).AddIndexer(kInvolvedIndex, InvolvedOf).ok());
}

kube::SharedInformer& SyncerInformers::Virtual(const kube::ResourceType& type) {
  auto it = virtual_.find(Key(type));
  CHECK(it != virtual_.end()) << "no virtual informer for " << type.resource;
  return *it->second;
}

kube::SharedInformer& SyncerInformers::Host(const kube::ResourceType& type) {
  auto it = host_.find(Key(type));
  CHECK(it != host_.end()) << "no host informer for " << type.resource;
  return *it->second;
}

}  // namespace vtenant::syncer

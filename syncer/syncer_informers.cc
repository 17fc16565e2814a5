#include "syncer/syncer_informers.h"

#include <glog/logging.h>

#include "syncer/endpoint_slice_translator.h"
#include "syncer/names.h"
#include "syncer/pod_references.h"
#include "syncer/resources.h"

namespace vtenant::syncer {
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
  if (auto group = kube::Annotation(pod, kPodGroupAnnotation)) {
    values.push_back("podgroup/" + std::string(kube::Namespace(pod)) + "/" + std::string(*group));
  }
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

}  // namespace

SyncerInformers::SyncerInformers(kube::Client& virtual_client, kube::Client& host_client,
                                 const SyncerConfig& config, kube::InformerOptions options)
    : virtual_client_(virtual_client), host_client_(host_client), dispatcher_(options.clock) {
  // No reconciler reads managedFields, and writing a cached object back
  // whole without them leaves the server's unchanged.
  if (!options.transform) options.transform = kube::DropManagedFields;
  // One syncer runs per tenant and caches every pod twice (virtual and
  // host); reconcilers read a few objects per key, so caching deflated text
  // (a tenth of a document) is worth microseconds per read.
  options.cache_storage = kube::CacheStorage::kCompressedJsonText;
  // Every handler only queues keys, so one thread delivers for all.
  options.dispatcher = &dispatcher_;
  kube::InformerOptions everywhere = options;
  everywhere.ns.clear();
  everywhere.label_selector.clear();
  for (const kube::ResourceType* type :
       {&kube::resources::kPods, &kube::resources::kServices, &kube::resources::kConfigMaps,
        &kube::resources::kSecrets, &resources::kPersistentVolumeClaims,
        &kube::resources::kNamespaces, &kube::resources::kNodes, &resources::kReplicaSets,
        &kube::resources::kJobs, &resources::kStatefulSets}) {
    virtual_[Key(*type)] =
        std::make_unique<kube::SharedInformer>(virtual_client, *type, everywhere);
  }
  kube::InformerOptions owned = options;
  owned.ns = config.host_namespace;
  owned.label_selector = std::string(kManagedByLabel) + "=" + kManagedByValue + "," + kTenantLabel +
                         "=" + config.tenant;
  for (const kube::ResourceType* type :
       {&kube::resources::kPods, &kube::resources::kServices, &kube::resources::kConfigMaps,
        &kube::resources::kSecrets, &resources::kPersistentVolumeClaims,
        &kube::resources::kPodGroups}) {
    host_[Key(*type)] = std::make_unique<kube::SharedInformer>(host_client, *type, owned);
  }
  if (config.sync_endpoints) {
    virtual_[Key(kube::resources::kEndpoints)] = std::make_unique<kube::SharedInformer>(
        virtual_client, kube::resources::kEndpoints, everywhere);
    host_[Key(kube::resources::kEndpoints)] =
        std::make_unique<kube::SharedInformer>(host_client, kube::resources::kEndpoints, owned);
    virtual_[Key(resources::kEndpointSlices)] = std::make_unique<kube::SharedInformer>(
        virtual_client, resources::kEndpointSlices, everywhere);
    host_[Key(resources::kEndpointSlices)] =
        std::make_unique<kube::SharedInformer>(host_client, resources::kEndpointSlices, owned);
    CHECK(Virtual(resources::kEndpointSlices).AddIndexer(kServiceIndex, ServiceOfSlice).ok());
  }
  host_[Key(kube::resources::kNodes)] =
      std::make_unique<kube::SharedInformer>(host_client, kube::resources::kNodes, everywhere);
  // KAI's PodGroup CRD reaches a virtual cluster after its API server is up
  // (the operator installs it), or never, when the syncer runs by hand: the
  // informer lists until it is there, and does not hold back HasSynced.
  virtual_[Key(kube::resources::kPodGroups)] = std::make_unique<kube::SharedInformer>(
      virtual_client, kube::resources::kPodGroups, everywhere);
  optional_virtual_.insert(Key(kube::resources::kPodGroups));

  kube::SharedInformer& pods = Virtual(kube::resources::kPods);
  CHECK(pods.AddIndexer(kNodeIndex, NodeOf).ok());
  CHECK(pods.AddIndexer(kReferenceIndex, ReferenceIndexValues).ok());
  CHECK(pods.AddIndexer(kOwnerUidIndex, OwnerUidsOf).ok());
  CHECK(Host(kube::resources::kPods).AddIndexer(kPodGroupIndex, PodGroupOf).ok());
  CHECK(Host(kube::resources::kPods).AddIndexer(kNodeIndex, NodeOf).ok());
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

Status SyncerInformers::Run() {
  for (auto* side : {&virtual_, &host_}) {
    for (auto& [key, informer] : *side) VT_RETURN_IF_ERROR(informer->Run());
  }
  return Status::Ok();
}

bool SyncerInformers::HasSynced() const {
  for (auto* side : {&virtual_, &host_}) {
    for (auto& [key, informer] : *side) {
      if (side == &virtual_ && optional_virtual_.contains(key)) continue;
      if (!informer->HasSynced()) return false;
    }
  }
  return true;
}

bool SyncerInformers::WaitForSynced(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto* side : {&virtual_, &host_}) {
    for (auto& [key, informer] : *side) {
      if (side == &virtual_ && optional_virtual_.contains(key)) continue;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (!informer->WaitForSynced(std::max(left, std::chrono::milliseconds(0)))) return false;
    }
  }
  return true;
}

void SyncerInformers::Stop() {
  for (auto* side : {&virtual_, &host_}) {
    for (auto& [key, informer] : *side) informer->Stop();
  }
}

}  // namespace vtenant::syncer

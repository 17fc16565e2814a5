#include "syncer/syncer.h"

#include <glog/logging.h>

#include "syncer/names.h"
#include "syncer/pod_references.h"
#include "syncer/resources.h"

namespace vtenant::syncer {
namespace {

using kube::resources::kConfigMaps;
using kube::resources::kNodes;
using kube::resources::kPodGroups;
using kube::resources::kPods;
using kube::resources::kSecrets;
using kube::resources::kServices;
using resources::kPersistentVolumeClaims;

CopyTranslator DataCopy(const DataTranslator& t) {
  return {
      [&t](const rapidjson::Value& v) { return t.ToHost(v); },
      [&t](const rapidjson::Value& v, const rapidjson::Value& h) { return t.Update(v, h); },
      [&t](const rapidjson::Value& v, const rapidjson::Value& h) { return t.NeedsReplace(v, h); }};
}

template <typename Translator>
CopyTranslator Copy(const Translator& t) {
  return {[&t](const rapidjson::Value& v) { return t.ToHost(v); },
          [&t](const rapidjson::Value& v, const rapidjson::Value& h) { return t.Update(v, h); },
          {}};
}

// Keys "ns/name" of the pod's references of one kind ("configmap", ...).
kube::KeyMapper ReferencesOfKind(std::string prefix) {
  return [prefix](const kube::Object& pod) {
    std::vector<std::string> keys;
    for (const std::string& value : ReferenceIndexValues(pod)) {
      if (value.starts_with(prefix + "/")) keys.push_back(value.substr(prefix.size() + 1));
    }
    return keys;
  };
}

// The virtual API server's own Service (and its Endpoints) stay virtual.
bool IsVirtualApiServerService(const rapidjson::Value& o) {
  return kube::Namespace(o) == "default" && kube::Name(o) == "kubernetes";
}

std::vector<std::string> Optional(std::optional<std::string> key) {
  if (!key) return {};
  return {*key};
}

}  // namespace

kube::ManagerOptions SyncerManagerOptions(const SyncerConfig& config, bool leader_elect,
                                          std::chrono::milliseconds resync_period) {
  kube::ManagerOptions options;
  options.name = "vtenant-syncer";
  options.informer_defaults.resync_period = resync_period;
  // No reconciler reads managedFields, and writing a cached object back
  // whole without them leaves the server's unchanged.
  options.informer_defaults.transform = kube::DropManagedFields;
  // One syncer runs per tenant and caches every pod twice (virtual and
  // host); reconcilers read a few objects per key, so caching deflated text
  // (a tenth of a document) is worth microseconds per read.
  options.informer_defaults.cache_storage = kube::CacheStorage::kCompressedJsonText;
  // Every handler only queues keys, so one thread delivers for all.
  options.shared_event_dispatcher = true;
  if (leader_elect) {
    // The host namespace is the one place its host credentials may write.
    options.leader_election = kube::LeaderElectionConfig{
        .lease_namespace = config.host_namespace, .lease_name = "vtenant-syncer-" + config.tenant};
    // An API server outage long enough to cost the Lease must not cost the
    // caches: a restart would relist both clusters.
    options.compete_again_after_lost_lease = true;
  }
  return options;
}

Syncer::Syncer(kube::Manager& manager, kube::ClusterHandle& virtual_cluster, SyncerConfig config,
               SyncerOptions options)
    : manager_(manager),
      config_(std::move(config)),
      options_(options),
      informers_(virtual_cluster.informers(), manager.cluster().informers(), config_),
      metrics_(manager.registry()),
      events_(virtual_cluster.client(), "vtenant-syncer"),
      data_translator_(config_),
      claim_translator_(config_),
      service_translator_(config_),
      endpoints_translator_(config_),
      endpoint_slice_translator_(config_),
      config_maps_(informers_, config_, kConfigMaps, DataCopy(data_translator_),
                   CopySyncer::Scope::kReferenced, "configmap", metrics_, events_),
      secrets_(informers_, config_, kSecrets, DataCopy(data_translator_),
               CopySyncer::Scope::kReferenced, "secret", metrics_, events_),
      claims_(informers_, config_, kPersistentVolumeClaims, Copy(claim_translator_),
              CopySyncer::Scope::kReferenced, "pvc", metrics_, events_),
      services_(informers_, config_, kServices, Copy(service_translator_), CopySyncer::Scope::kAll,
                "", metrics_, events_),
      endpoints_(informers_, config_, kube::resources::kEndpoints, SelectorlessEndpoints(),
                 CopySyncer::Scope::kAll, "", metrics_, events_),
      endpoint_slices_(informers_, config_, resources::kEndpointSlices, HandWrittenEndpointSlices(),
                       CopySyncer::Scope::kAll, "", metrics_, events_),
      nodes_(informers_, metrics_),
      pod_groups_(informers_, config_, metrics_),
      pod_group_validator_(informers_, config_, events_),
      pods_(informers_, config_,
            PodDependencies{config_maps_, secrets_, claims_, nodes_, pod_groups_}, events_,
            metrics_, options_.wall_clock) {
  Wire();
  manager_.AddRunnable(
      "api-server-probe", [this](kube::Cancellation& stop) { ProbeLoop(stop); },
      /*needs_leader=*/false);
  manager_.AddReadyCheck("api-servers", [this] { return ServersAnswer(); });
}

CopyTranslator Syncer::SelectorlessEndpoints() {
  CopyTranslator t = Copy(endpoints_translator_);
  // With a selector, the host's endpoints controller fills the host copy's
  // Endpoints from the host pods; only hand-made ones need carrying over.
  t.wanted = [this](const rapidjson::Value& endpoints) {
    if (IsVirtualApiServerService(endpoints)) return false;
    kube::ObjectPtr svc = informers_.Virtual(kServices).cache().Get(kube::KeyOf(endpoints));
    return svc != nullptr && SelectsNoPods(*svc);
  };
  return t;
}

CopyTranslator Syncer::HandWrittenEndpointSlices() {
  CopyTranslator t = Copy(endpoint_slice_translator_);
  t.wanted = [this](const rapidjson::Value& slice) {
    std::optional<std::string_view> service = EndpointSliceTranslator::ServiceOf(slice);
    if (!service) return false;
    kube::ObjectPtr svc =
        informers_.Virtual(kServices).cache().Get(kube::MakeKey(kube::Namespace(slice), *service));
    return EndpointSliceTranslator::Wanted(slice, svc.get());
  };
  return t;
}

void Syncer::AddController(std::string name, kube::Reconciler& reconciler, int workers,
                           std::vector<Source> sources) {
  kube::Controller& controller =
      manager_.AddController({.name = std::move(name), .workers = workers}, reconciler);
  for (auto& [informer, mapper] : sources) controller.Watch(*informer, std::move(mapper));
}

void Syncer::Wire() {
  kube::SharedInformer& virtual_pods = informers_.Virtual(kPods);
  kube::SharedInformer& host_pods = informers_.Host(kPods);
  // Hooks first: the dispatcher runs handlers in order, so a deletion's
  // reason is recorded before the reconcile it triggers can ask for it.
  virtual_pods.AddEventHandler(
      {.on_add = [this](const kube::ObjectPtr& pod) { pods_.VirtualPodSeen(*pod); }});
  host_pods.AddEventHandler(
      {.on_delete = [this](const kube::ObjectPtr& pod) { pods_.HostPodDeleted(*pod); }});

  AddController("pod-syncer", pods_, options_.pod_workers,
                {{&virtual_pods, {}}, {&host_pods, [](const kube::Object& o) {
                                         return Optional(PodSyncer::VirtualKeyOf(o));
                                       }}});

  auto host_copy_key = [](const kube::Object& o) {
    if (kube::Label(o, "vtenant.io/purpose")) return std::vector<std::string>{};
    return Optional(CopySyncer::VirtualKeyOf(o));
  };
  struct Referenced {
    const char* name;
    CopySyncer& syncer;
    const char* prefix;
  };
  for (Referenced r : {Referenced{"configmap-syncer", config_maps_, "configmap"},
                       Referenced{"secret-syncer", secrets_, "secret"},
                       Referenced{"pvc-syncer", claims_, "pvc"}}) {
    AddController(r.name, r.syncer, options_.other_workers,
                  {{&informers_.Virtual(r.syncer.type()), {}},
                   {&informers_.Host(r.syncer.type()), host_copy_key},
                   {&virtual_pods, ReferencesOfKind(r.prefix)}});
  }
  auto same_key_unless_api_server = [](const kube::Object& o) {
    if (IsVirtualApiServerService(o)) return std::vector<std::string>{};
    return std::vector<std::string>{kube::KeyOf(o)};
  };
  AddController("service-syncer", services_, options_.other_workers,
                {{&informers_.Virtual(kServices), same_key_unless_api_server},
                 {&informers_.Host(kServices), host_copy_key}});
  if (config_.sync_endpoints) {
    // A Service's Endpoints share its key: a Service gaining or losing its
    // selector, or going, re-decides whether its Endpoints are on the host.
    AddController("endpoints-syncer", endpoints_, options_.other_workers,
                  {{&informers_.Virtual(kube::resources::kEndpoints), same_key_unless_api_server},
                   {&informers_.Virtual(kServices), same_key_unless_api_server},
                   {&informers_.Host(kube::resources::kEndpoints), host_copy_key}});
    // Slices are keyed by their own names; a Service's events reach the
    // slices that name it through the "service" index.
    kube::SharedInformer& virtual_slices = informers_.Virtual(resources::kEndpointSlices);
    auto slices_of_service = [&virtual_slices](const kube::Object& svc) {
      std::vector<std::string> keys;
      Result<std::vector<kube::ObjectPtr>> slices =
          virtual_slices.cache().ByIndex(kServiceIndex, kube::KeyOf(svc));
      if (slices.ok()) {
        for (const kube::ObjectPtr& slice : *slices) keys.push_back(kube::KeyOf(*slice));
      }
      return keys;
    };
    AddController("endpointslice-syncer", endpoint_slices_, options_.other_workers,
                  {{&virtual_slices, {}},
                   {&informers_.Virtual(kServices), slices_of_service},
                   {&informers_.Host(resources::kEndpointSlices), host_copy_key}});
  }

  auto node_of = [](const kube::Object& pod) {
    std::string_view node = kube::GetString(pod, {"spec", "nodeName"});
    return node.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::string(node)};
  };
  AddController("node-syncer", nodes_, options_.other_workers,
                {{&virtual_pods, node_of},
                 {&host_pods, node_of},
                 {&informers_.Host(kNodes), {}},
                 {&informers_.Virtual(kNodes), {}}});

  AddController("podgroup-syncer", pod_groups_, options_.other_workers,
                {{&informers_.Host(kPodGroups), {}},
                 // A team's change to its PodGroup reaches the host group at once.
                 {&informers_.Virtual(kPodGroups),
                  [this](const kube::Object& pg) {
                    return std::vector<std::string>{pod_groups_.HostKeyOf(pg)};
                  }},
                 {&host_pods, [this](const kube::Object& pod) {
                    auto group = kube::Annotation(pod, kPodGroupAnnotation);
                    if (!group) return std::vector<std::string>{};
                    return std::vector<std::string>{kube::MakeKey(config_.host_namespace, *group)};
                  }}});
  // A group whose spec is refused says so on itself, pods or not.
  AddController("podgroup-validator", pod_group_validator_, 1,
                {{&informers_.Virtual(kPodGroups), {}}});
}

void Syncer::ProbeLoop(kube::Cancellation& stop) {
  do {
    kube::ListOptions one{.limit = 1};
    virtual_reachable_ =
        informers_.virtual_client().List(kube::resources::kNamespaces, "", one).ok();
    host_reachable_ = informers_.host_client().List(kPods, config_.host_namespace, one).ok();
  } while (!stop.WaitFor(options_.probe_period));
}

Status Syncer::ServersAnswer() const {
  if (!virtual_reachable_) return Unavailable("the virtual API server does not answer");
  if (!host_reachable_) return Unavailable("the host API server does not answer");
  return Status::Ok();
}

}  // namespace vtenant::syncer

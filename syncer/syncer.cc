#include "syncer/syncer.h"

#include <glog/logging.h>

#include "syncer/device_claim_sweep.h"
#include "syncer/host_identity.h"
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
      [&t](const rapidjson::Value& v, TranslationNotes* notes) { return t.ToHost(v, notes); },
      [&t](const rapidjson::Value& d, const rapidjson::Value& h) { return t.Update(d, h); },
      [&t](const rapidjson::Value& d, const rapidjson::Value& h) { return t.NeedsReplace(d, h); }};
}

template <typename Translator>
CopyTranslator Copy(const Translator& t) {
  return {[&t](const rapidjson::Value& v, TranslationNotes* notes) { return t.ToHost(v, notes); },
          [&t](const rapidjson::Value& d, const rapidjson::Value& h) { return t.Update(d, h); },
          {}};
}

// Copy, for a translator that judges addresses against the host's network
// as `network` reads it at each copy (Endpoints, EndpointSlices), of the
// virtual objects `wanted` takes.
template <typename Translator>
CopyTranslator AddressCopy(const Translator& t, std::function<HostNetwork()> network,
                           std::function<bool(const rapidjson::Value&)> wanted) {
  return {[&t, network = std::move(network)](const rapidjson::Value& v, TranslationNotes* notes) {
            return t.ToHost(v, network(), notes);
          },
          [&t](const rapidjson::Value& d, const rapidjson::Value& h) { return t.Update(d, h); },
          {},
          std::move(wanted)};
}

// ResourceClaims' status in the team's cluster shows their copies'
// allocation.
CopyTranslator ResourceClaimCopy(const DeviceClaimTranslator& t) {
  CopyTranslator copy = Copy(t);
  copy.status_from_host = [&t](const rapidjson::Value* host, const rapidjson::Value& v) {
    return t.StatusFromHost(host, v);
  };
  return copy;
}

// Services' copies are deleted only once the virtual API server confirms
// the Service is gone (ServiceAddressSyncer re-creates them), and one whose
// cluster IP the host refuses lets the host pick.
CopyTranslator ServiceCopy(const ServiceTranslator& t, ServiceAddressSyncer& addresses) {
  CopyTranslator copy = Copy(t);
  copy.instead_of_invalid = &ServiceTranslator::WithoutClusterIP;
  copy.confirm_absence = true;
  copy.keep_copy = [&addresses](const std::string& key) { return addresses.Recreating(key); };
  return copy;
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
      device_claim_translator_(config_),
      service_translator_(config_),
      endpoints_translator_(config_),
      endpoint_slice_translator_(config_),
      config_maps_(informers_, config_, kConfigMaps, DataCopy(data_translator_),
                   CopySyncer::Scope::kReferenced, "configmap", metrics_, events_),
      secrets_(informers_, config_, kSecrets, DataCopy(data_translator_),
               CopySyncer::Scope::kReferenced, "secret", metrics_, events_),
      claims_(informers_, config_, kPersistentVolumeClaims, Copy(claim_translator_),
              CopySyncer::Scope::kReferenced, "pvc", metrics_, events_),
      resource_claims_(
          config_.allowed_device_classes.empty()
              ? nullptr
              : std::make_unique<CopySyncer>(informers_, config_, resources::kResourceClaims,
                                             ResourceClaimCopy(device_claim_translator_),
                                             CopySyncer::Scope::kReferenced, "resourceclaim",
                                             metrics_, events_)),
      claim_templates_(config_.allowed_device_classes.empty()
                           ? nullptr
                           : std::make_unique<CopySyncer>(
                                 informers_, config_, resources::kResourceClaimTemplates,
                                 Copy(device_claim_translator_), CopySyncer::Scope::kReferenced,
                                 "resourceclaimtemplate", metrics_, events_)),
      services_(informers_, config_, kServices,
                ServiceCopy(service_translator_, service_addresses_), CopySyncer::Scope::kAll, "",
                metrics_, events_),
      service_addresses_(informers_, config_, metrics_, events_),
      endpoints_(informers_, config_, kube::resources::kEndpoints, SelectorlessEndpoints(),
                 CopySyncer::Scope::kAll, "", metrics_, events_),
      endpoint_slices_(informers_, config_, resources::kEndpointSlices, HandWrittenEndpointSlices(),
                       CopySyncer::Scope::kAll, "", metrics_, events_),
      nodes_(informers_, config_, metrics_),
      pod_groups_(informers_, config_, metrics_),
      pod_group_validator_(informers_, config_, events_),
      pods_(informers_, config_,
            PodDependencies{config_maps_, secrets_, claims_, resource_claims_.get(),
                            claim_templates_.get(), nodes_, pod_groups_},
            events_, metrics_, options_.wall_clock, options_.token_recheck),
      event_limit_(options_.event_rate_limit, kube::DefaultClock()),
      events_up_(informers_, config_, metrics_, event_limit_) {
  Wire();
  manager_.AddRunnable(
      "api-server-probe", [this](kube::Cancellation& stop) { ProbeLoop(stop); },
      /*needs_leader=*/false);
  if (config_.allowed_device_classes.empty()) {
    manager_.AddRunnable("device-claim-sweep",
                         [this](kube::Cancellation& stop) { SweepDeviceClaimCopies(stop); });
  }
  manager_.AddReadyCheck("api-servers", [this] { return ServersAnswer(); });
}

HostNetwork Syncer::Network() {
  HostNetwork network;
  for (const kube::ObjectPtr& node : informers_.Host(kNodes).cache().List()) {
    network.AddNode(*node);
  }
  // The host pod cache holds this tenant's pods only; their addresses
  // matter only inside a pod range, which many network plugins do not
  // publish on Nodes.
  if (network.HasPodRanges()) {
    for (const kube::ObjectPtr& pod : informers_.Host(kPods).cache().List()) {
      network.AddTenantPod(*pod);
    }
  }
  return network;
}

kube::ObjectPtr Syncer::VirtualService(std::string_view ns, std::string_view name) {
  if (kube::ObjectPtr svc = informers_.Virtual(kServices).cache().Get(kube::MakeKey(ns, name))) {
    return svc;
  }
  // Absent from the cache: maybe only for the moment ServiceAddressSyncer
  // takes it away to give it its host address; its endpoints must not go.
  Result<kube::Object> live = informers_.virtual_client().Get(kServices, ns, name);
  if (!live.ok()) return nullptr;
  return std::make_shared<const kube::Object>(std::move(*live));
}

bool Syncer::TakesHandWrittenEndpoints(std::string_view ns, std::string_view name) {
  kube::ObjectPtr svc = VirtualService(ns, name);
  return svc != nullptr && SelectsNoPods(*svc) && !service_translator_.Check(*svc);
}

CopyTranslator Syncer::SelectorlessEndpoints() {
  return AddressCopy(
      endpoints_translator_, [this] { return Network(); },
      // With a selector, the host's endpoints controller fills the host
      // copy's Endpoints from the host pods; only hand-made ones need
      // carrying over.
      [this](const rapidjson::Value& endpoints) {
        return !IsVirtualApiServerService(endpoints) &&
               TakesHandWrittenEndpoints(kube::Namespace(endpoints), kube::Name(endpoints));
      });
}

CopyTranslator Syncer::HandWrittenEndpointSlices() {
  return AddressCopy(
      endpoint_slice_translator_, [this] { return Network(); },
      [this](const rapidjson::Value& slice) {
        std::optional<std::string_view> service = EndpointSliceTranslator::ServiceOf(slice);
        if (!service) return false;
        kube::ObjectPtr svc = VirtualService(kube::Namespace(slice), *service);
        // Its Service is away only while ServiceAddressSyncer gives it
        // its host address: a copy made before stays meanwhile, as the
        // Service's own copy does (and none is made).
        if (svc == nullptr) {
          const std::string_view ns = kube::Namespace(slice);
          return service_addresses_.Recreating(kube::MakeKey(ns, *service)) &&
                 informers_.Host(resources::kEndpointSlices)
                         .cache()
                         .Get(kube::MakeKey(config_.host_namespace,
                                            HostName(kube::Name(slice), ns, config_.tenant))) !=
                     nullptr;
        }
        return EndpointSliceTranslator::Wanted(slice, svc.get()) &&
               !service_translator_.Check(*svc);
      });
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
      {.on_add = [this](const kube::ObjectPtr& pod) { pods_.VirtualPodSeen(*pod); },
       .on_delete = [this](const kube::ObjectPtr& pod) { pods_.VirtualPodDeleted(*pod); }});
  host_pods.AddEventHandler({.on_delete = [this](const kube::ObjectPtr& pod) {
    pods_.HostPodDeleted(*pod);
    events_up_.HostObjectDeleted("Pod", *pod);
  }});
  informers_.Host(kPodGroups).AddEventHandler({.on_delete = [this](const kube::ObjectPtr& pg) {
    events_up_.HostObjectDeleted(kai::kPodGroupKind, *pg);
  }});

  AddController("pod-syncer", pods_, options_.pod_workers,
                {{&virtual_pods, {}},
                 {&host_pods, [](const kube::Object& o) { return Optional(VirtualKeyOf(o)); }}});

  auto host_copy_key = [](const kube::Object& o) {
    if (kube::Label(o, "vtenant.io/purpose")) return std::vector<std::string>{};
    return Optional(VirtualKeyOf(o));
  };
  struct Referenced {
    const char* name;
    CopySyncer& syncer;
    const char* prefix;
  };
  std::vector<Referenced> referenced = {Referenced{"configmap-syncer", config_maps_, "configmap"},
                                        Referenced{"secret-syncer", secrets_, "secret"},
                                        Referenced{"pvc-syncer", claims_, "pvc"}};
  if (resource_claims_ != nullptr) {
    referenced.push_back({"resourceclaim-syncer", *resource_claims_, "resourceclaim"});
    referenced.push_back(
        {"resourceclaimtemplate-syncer", *claim_templates_, "resourceclaimtemplate"});
  }
  for (Referenced r : referenced) {
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
  // A host copy's address (allocated by the host) reaches its Service.
  AddController("service-address-syncer", service_addresses_, options_.other_workers,
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
  // Host Events up; a host pod or PodGroup that appears after the Events
  // about it brings them along.
  kube::Controller& events_up = manager_.AddController(
      {.name = "event-syncer", .workers = options_.other_workers}, events_up_);
  events_up.Watch(informers_.Host(kube::resources::kEvents));
  kube::EventFilter adds_only;
  adds_only.predicate = [](kube::EventFilter::Event e, const kube::Object*, const kube::Object&) {
    return e == kube::EventFilter::Event::kAdd;
  };
  events_up.Watch(
      host_pods,
      [this](const kube::Object& pod) { return events_up_.EventKeysAbout("Pod", kube::Name(pod)); },
      adds_only);
  events_up.Watch(
      informers_.Host(kPodGroups),
      [this](const kube::Object& pg) {
        return events_up_.EventKeysAbout(kai::kPodGroupKind, kube::Name(pg));
      },
      adds_only);
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

void Syncer::SweepDeviceClaimCopies(kube::Cancellation& stop) {
  std::chrono::milliseconds backoff = kSweepFirstRetry;
  do {
    int deleted = 0;
    Status swept = DeleteDeviceClaimCopies(informers_.host_client(), config_.host_namespace,
                                           config_.tenant, &deleted);
    if (deleted > 0) {
      LOG(INFO) << "deleted " << deleted << " host copies of ResourceClaims and their templates: "
                << "Tenant " << config_.tenant << " lists no device classes";
    }
    if (swept.ok()) return;
    LOG(WARNING) << "deleting the host copies of ResourceClaims (Tenant " << config_.tenant
                 << " lists no device classes): " << swept.ToString() << "; trying again";
    backoff = std::min(backoff * 2, kSweepLastRetry);
  } while (!stop.WaitFor(backoff));
}

Status Syncer::ServersAnswer() const {
  if (!virtual_reachable_) return Unavailable("the virtual API server does not answer");
  if (!host_reachable_) return Unavailable("the host API server does not answer");
  return Status::Ok();
}

}  // namespace vtenant::syncer

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

kube::InformerOptions InformerOptionsOf(const SyncerOptions& options) {
  kube::InformerOptions informer;
  informer.resync_period = options.resync_period;
  return informer;
}

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

Syncer::Syncer(kube::Client& virtual_client, kube::Client& host_client, SyncerConfig config,
               SyncerOptions options)
    : config_(std::move(config)),
      options_(options),
      informers_(virtual_client, host_client, config_, InformerOptionsOf(options_)),
      metrics_(*options_.registry),
      events_(virtual_client, "vtenant-syncer"),
      data_translator_(config_),
      claim_translator_(config_),
      service_translator_(config_),
      endpoints_translator_(config_),
      endpoint_slice_translator_(config_),
      config_maps_(informers_, config_, kConfigMaps, DataCopy(data_translator_),
                   CopySyncer::Scope::kReferenced, "configmap", metrics_),
      secrets_(informers_, config_, kSecrets, DataCopy(data_translator_),
               CopySyncer::Scope::kReferenced, "secret", metrics_),
      claims_(informers_, config_, kPersistentVolumeClaims, Copy(claim_translator_),
              CopySyncer::Scope::kReferenced, "pvc", metrics_),
      services_(informers_, config_, kServices, Copy(service_translator_), CopySyncer::Scope::kAll,
                "", metrics_),
      endpoints_(informers_, config_, kube::resources::kEndpoints, SelectorlessEndpoints(),
                 CopySyncer::Scope::kAll, "", metrics_),
      endpoint_slices_(informers_, config_, resources::kEndpointSlices, HandWrittenEndpointSlices(),
                       CopySyncer::Scope::kAll, "", metrics_),
      nodes_(informers_, metrics_),
      pod_groups_(informers_, config_, metrics_),
      pods_(informers_, config_,
            PodDependencies{config_maps_, secrets_, claims_, nodes_, pod_groups_}, events_,
            metrics_, options_.wall_clock) {
  Wire();
}

Syncer::~Syncer() { Stop(); }

CopyTranslator Syncer::SelectorlessEndpoints() {
  CopyTranslator t = Copy(endpoints_translator_);
  // With a selector, the host's endpoints controller fills the host copy's
  // Endpoints from the host pods; only hand-made ones need carrying over.
  t.wanted = [this](const rapidjson::Value& endpoints) {
    if (IsVirtualApiServerService(endpoints)) return false;
    kube::ObjectPtr svc = informers_.Virtual(kServices).cache().Get(kube::KeyOf(endpoints));
    if (svc == nullptr) return false;
    const rapidjson::Value* selector = kube::Find(*svc, {"spec", "selector"});
    return selector == nullptr || !selector->IsObject() || selector->ObjectEmpty();
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

void Syncer::AddRoute(Route route) {
  const size_t index = routes_.size();
  for (auto& [informer, mapper] : route.sources) {
    auto enqueue = [this, index, mapper = mapper](const kube::ObjectPtr& object) {
      if (!object) return;
      if (!mapper) {
        Enqueue(index, kube::KeyOf(*object));
        return;
      }
      for (const std::string& key : mapper(*object)) Enqueue(index, key);
    };
    informer->AddEventHandler({
        .on_add = enqueue,
        .on_update = [enqueue](const kube::ObjectPtr&,
                               const kube::ObjectPtr& now) { enqueue(now); },
        .on_delete = enqueue,
    });
  }
  routes_.push_back(std::move(route));
}

void Syncer::Enqueue(size_t index, const std::string& key) {
  std::shared_lock lock(controllers_mu_);
  if (index < controllers_.size()) controllers_[index]->Enqueue(key);
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

  AddRoute({"pod-syncer",
            &pods_,
            options_.pod_workers,
            {{&virtual_pods, {}}, {&host_pods, [](const kube::Object& o) {
                                     return Optional(PodSyncer::VirtualKeyOf(o));
                                   }}}});

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
    AddRoute({r.name,
              &r.syncer,
              options_.other_workers,
              {{&informers_.Virtual(r.syncer.type()), {}},
               {&informers_.Host(r.syncer.type()), host_copy_key},
               {&virtual_pods, ReferencesOfKind(r.prefix)}}});
  }
  auto same_key_unless_api_server = [](const kube::Object& o) {
    if (IsVirtualApiServerService(o)) return std::vector<std::string>{};
    return std::vector<std::string>{kube::KeyOf(o)};
  };
  AddRoute({"service-syncer",
            &services_,
            options_.other_workers,
            {{&informers_.Virtual(kServices), same_key_unless_api_server},
             {&informers_.Host(kServices), host_copy_key}}});
  if (config_.sync_endpoints) {
    // A Service's Endpoints share its key: a Service gaining or losing its
    // selector, or going, re-decides whether its Endpoints are on the host.
    AddRoute({"endpoints-syncer",
              &endpoints_,
              options_.other_workers,
              {{&informers_.Virtual(kube::resources::kEndpoints), same_key_unless_api_server},
               {&informers_.Virtual(kServices), same_key_unless_api_server},
               {&informers_.Host(kube::resources::kEndpoints), host_copy_key}}});
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
    AddRoute({"endpointslice-syncer",
              &endpoint_slices_,
              options_.other_workers,
              {{&virtual_slices, {}},
               {&informers_.Virtual(kServices), slices_of_service},
               {&informers_.Host(resources::kEndpointSlices), host_copy_key}}});
  }

  auto node_of = [](const kube::Object& pod) {
    std::string_view node = kube::GetString(pod, {"spec", "nodeName"});
    return node.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::string(node)};
  };
  AddRoute({"node-syncer",
            &nodes_,
            options_.other_workers,
            {{&virtual_pods, node_of},
             {&host_pods, node_of},
             {&informers_.Host(kNodes), {}},
             {&informers_.Virtual(kNodes), {}}}});

  AddRoute({"podgroup-syncer",
            &pod_groups_,
            options_.other_workers,
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
              }}}});
}

Status Syncer::Start() {
  if (started_.exchange(true)) return FailedPrecondition("the syncer was already started");
  VT_RETURN_IF_ERROR(informers_.Run());
  probe_ = std::thread([this] { ProbeLoop(); });
  return Status::Ok();
}

void Syncer::ProbeLoop() {
  do {
    kube::ListOptions one{.limit = 1};
    virtual_reachable_ =
        informers_.virtual_client().List(kube::resources::kNamespaces, "", one).ok();
    host_reachable_ = informers_.host_client().List(kPods, config_.host_namespace, one).ok();
  } while (!stop_probe_.WaitFor(options_.probe_period));
}

Status Syncer::Ready() const {
  if (!started_) return Unavailable("not started");
  if (!informers_.HasSynced()) return Unavailable("caches not synced yet");
  if (!virtual_reachable_) return Unavailable("the virtual API server does not answer");
  if (!host_reachable_) return Unavailable("the host API server does not answer");
  return Status::Ok();
}

void Syncer::StartControllers() {
  std::lock_guard lifecycle(lifecycle_mu_);
  if (!controllers_.empty()) return;
  {
    std::unique_lock lock(controllers_mu_);
    for (const Route& route : routes_) {
      controllers_.push_back(std::make_unique<kube::Controller>(
          kube::ControllerOptions{
              .name = route.name, .workers = route.workers, .registry = options_.registry},
          *route.reconciler));
    }
  }
  // Every cached object of every source: events from before this start
  // were not queued anywhere.
  for (size_t i = 0; i < routes_.size(); ++i) {
    for (const auto& [informer, mapper] : routes_[i].sources) {
      for (const kube::ObjectPtr& object : informer->cache().List()) {
        if (!mapper) {
          Enqueue(i, kube::KeyOf(*object));
          continue;
        }
        for (const std::string& key : mapper(*object)) Enqueue(i, key);
      }
    }
  }
  std::shared_lock lock(controllers_mu_);
  for (auto& c : controllers_) {
    controller_threads_.emplace_back([c = c.get()] { c->Run(); });
  }
  LOG(INFO) << "syncer " << config_.tenant << ": controllers started";
}

void Syncer::StopControllers() {
  std::lock_guard lifecycle(lifecycle_mu_);
  std::vector<std::unique_ptr<kube::Controller>> stopping;
  {
    std::unique_lock lock(controllers_mu_);
    stopping.swap(controllers_);  // no more Enqueue reaches them
  }
  for (auto& c : stopping) c->Stop();
  for (std::thread& t : controller_threads_) t.join();
  controller_threads_.clear();
  if (!stopping.empty()) LOG(INFO) << "syncer " << config_.tenant << ": controllers stopped";
}

void Syncer::Stop() {
  StopControllers();
  stop_probe_.Cancel();
  if (probe_.joinable()) probe_.join();
  informers_.Stop();
}

}  // namespace vtenant::syncer

#include "scheduler/scheduler_app.h"

#include <glog/logging.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <memory>

#include "base/flags.h"
#include "kube/heap_trimmer.h"
#include "scheduler-core/options.h"
#include "scheduler-core/workload_model.h"

namespace vtenant::scheduler {
namespace {

using ViewChange = void (ClusterView::*)(const rapidjson::Value&);

// A burst of pods (parsed, placed, bound, deleted) leaves freed heap in
// malloc's arenas; without these the scheduler's resident memory keeps the
// peak of every burst (see kube/heap_trimmer.h).
constexpr int kMallocArenas = 4;
constexpr auto kTrimPeriod = std::chrono::seconds(10);
// Scheduled Events waiting to be sent, at most: a burst's binds outrun the
// events client, and an Event is worth less than a bind.
constexpr size_t kScheduledEventsQueued = 1024;

// One Lease per shard, so that each pool has its own active replica. A
// label value may hold what a name may not ('_', capitals): those become
// '-' and lower case.
std::string LeaseName(const NodePool& pool) {
  std::string name = "vtenant-scheduler";
  if (pool.value.empty()) return name;
  name += '-';
  for (char c : pool.value)
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.'
                ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                : '-';
  return name;
}

// Handlers that keep one kind of `view` current: adds and updates through
// `upsert`, deletes through `remove`. An add also wakes `wake_on_add` when
// given (a new Queue or PodGroup may let waiting pods in).
kube::EventHandler KeepInView(ClusterView& view, ViewChange upsert, ViewChange remove,
                              SchedulingCycle* wake_on_add = nullptr) {
  return {.on_add =
              [&view, upsert, wake_on_add](const kube::ObjectPtr& o) {
                (view.*upsert)(*o);
                if (wake_on_add != nullptr) wake_on_add->Wake();
              },
          .on_update = [&view, upsert](const kube::ObjectPtr&,
                                       const kube::ObjectPtr& o) { (view.*upsert)(*o); },
          .on_delete = [&view, remove](const kube::ObjectPtr& o) { (view.*remove)(*o); }};
}

// Handlers that keep one kind of the view current through `upsert` (adds
// and updates) and `remove`, each saying whether the change is worth a
// cycle; `cycle` is woken when it is.
kube::EventHandler WakeWhenWorth(std::function<bool(const rapidjson::Value&)> upsert,
                                 std::function<bool(const rapidjson::Value&)> remove,
                                 SchedulingCycle& cycle) {
  auto on_upsert = [upsert = std::move(upsert), &cycle](const kube::ObjectPtr& o) {
    if (upsert(*o)) cycle.Wake();
  };
  return {
      .on_add = on_upsert,
      .on_update = [on_upsert](const kube::ObjectPtr&, const kube::ObjectPtr& o) { on_upsert(o); },
      .on_delete =
          [remove = std::move(remove), &cycle](const kube::ObjectPtr& o) {
            if (remove(*o)) cycle.Wake();
          }};
}

// Why the API server will not list `type` to vtenant-scheduler (it does
// not serve it, or the scheduler's ClusterRole lacks it), "" when it will.
// Any other failure is taken for a passing one: the informers retry.
std::string Unlistable(kube::Client& client, const kube::ResourceType& type) {
  Result<kube::ObjectList> probe = client.List(type, "", {.limit = 1});
  if (probe.ok()) return "";
  const StatusCode code = probe.status().code();
  if (code != StatusCode::kNotFound && code != StatusCode::kForbidden) return "";
  return std::string(probe.status().message());
}

}  // namespace

Result<std::unique_ptr<SchedulerApp>> SchedulerApp::Create(kube::Client& client,
                                                           SchedulerFlags flags,
                                                           AppOptions options) {
  VT_RETURN_IF_ERROR(sched::ParsePolicy(flags.policy).status().WithContext("--policy"));
  kube::LimitMallocArenas(kMallocArenas);
  std::unique_ptr<SchedulerApp> app(new SchedulerApp(client, std::move(flags), options));
  VT_RETURN_IF_ERROR(app->Wire());
  return app;
}

SchedulerApp::SchedulerApp(kube::Client& client, SchedulerFlags flags, AppOptions options)
    : client_(client),
      flags_(std::move(flags)),
      options_(options),
      pool_{flags_.nodepool_label_key, flags_.partition_label_value},
      view_(CorePodOptions{flags_.scheduler_name, flags_.reservation_namespace}, options.registry,
            WorkerRoles{.restrict = flags_.restrict_node_scheduling,
                        .gpu_label = flags_.gpu_worker_node_label_key,
                        .cpu_label = flags_.cpu_worker_node_label_key},
            pool_),
      events_(client, "vtenant-scheduler"),
      scheduled_recorder_(options.events_client != nullptr        ? *options.events_client
                          : options.bookkeeping_client != nullptr ? *options.bookkeeping_client
                                                                  : client,
                          "vtenant-scheduler"),
      scheduled_events_(scheduled_recorder_, kScheduledEventsQueued,
                        &options.registry
                             ->AddCounter("vtenant_scheduler_events_dropped_total",
                                          "Scheduled Events dropped: more waited to be sent "
                                          "than the queue holds.")
                             .value()
                             ->WithLabelValues({})),
      reservations_(client,
                    ReservationOptions{.ns = flags_.reservation_namespace,
                                       .image = flags_.reservation_image,
                                       .service_account = flags_.reservation_service_account}),
      evictor_(client, events_, options.registry) {}

Status SchedulerApp::Wire() {
  kube::ManagerOptions mo;
  mo.name = "vtenant-scheduler";
  mo.health_address = flags_.health_address;
  mo.handle_signals = options_.handle_signals;
  mo.registry = options_.registry;
  mo.informer_defaults.resync_period = std::chrono::minutes(5);
  if (flags_.leader_elect)
    mo.leader_election =
        kube::LeaderElectionConfig{.lease_namespace = flags_.leader_elect_namespace,
                                   .lease_name = LeaseName(pool_),
                                   .identity = options_.leader_identity};
  VT_ASSIGN_OR_RETURN(manager_, kube::Manager::Create(client_, std::move(mo)));
  kube::AddHeapTrimmer(*manager_, kTrimPeriod);
  kube::InformerFactory& informers = manager_->cluster().informers();
  kube::SharedInformer& pods = informers.Get(kube::resources::kPods);
  kube::SharedInformer& nodes = informers.Get(kube::resources::kNodes);
  kube::SharedInformer& queues = informers.Get(kube::resources::kQueues);
  kube::SharedInformer& podgroups = informers.Get(kube::resources::kPodGroups);
  // KAI's Topology CRD may be absent: the scheduler runs without it, and
  // a workload naming a Topology waits until it exists.
  kube::SharedInformer& topologies = informers.GetOptional(kube::resources::kTopologies);
  // A PodGroup's priority is its class's value, as KAI's.
  kube::SharedInformer& priority_classes = informers.Get(kube::resources::kPriorityClasses);
  // Only the ConfigMaps' names are read: their data is not kept.
  kube::SharedInformer& configmaps =
      informers.Get(kube::resources::kConfigMaps, {.transform = [](kube::Object& cm) {
                      kube::DropManagedFields(cm);
                      cm.RemoveMember("data");
                      cm.RemoveMember("binaryData");
                    }});
  // Namespaces' labels, which a pod affinity term's namespaceSelector reads.
  kube::SharedInformer& namespaces =
      informers.Get(kube::resources::kNamespaces, {.transform = [](kube::Object& ns) {
                      kube::DropManagedFields(ns);
                      ns.RemoveMember("spec");
                      ns.RemoveMember("status");
                    }});
  // Where a pod's PersistentVolumeClaims let it go (volume_claims.h).
  const kube::InformerOptions storage_options{.transform = kube::DropManagedFields};
  kube::SharedInformer& claims =
      informers.Get(kube::resources::kPersistentVolumeClaims, storage_options);
  kube::SharedInformer& volumes =
      informers.Get(kube::resources::kPersistentVolumes, storage_options);
  kube::SharedInformer& storage_classes =
      informers.Get(kube::resources::kStorageClasses, storage_options);
  kube::SharedInformer& csi_drivers = informers.Get(kube::resources::kCsiDrivers, storage_options);
  kube::SharedInformer& csi_capacities =
      informers.Get(kube::resources::kCsiStorageCapacities, storage_options);
  // How many volumes of each CSI driver a node attaches (attach_limits.h).
  kube::SharedInformer& csi_nodes = informers.Get(kube::resources::kCsiNodes, storage_options);

  // Dynamic resource allocation's objects (device_claims.h), where served.
  std::vector<std::pair<kube::SharedInformer*, ClusterView::DeviceKind>> device_informers;
  // resource.k8s.io/v1 is served from Kubernetes 1.34.
  if (std::string why = Unlistable(client_, kube::resources::kResourceSlices); !why.empty()) {
    why = "the API server does not let vtenant-scheduler read resource.k8s.io/v1 (" + why +
          "), so resource claims cannot be allocated";
    LOG(WARNING) << why;
    view_.DevicesUnavailable(std::move(why));
  } else {
    for (auto [type, kind] :
         {std::pair{&kube::resources::kResourceSlices, ClusterView::DeviceKind::kSlice},
          std::pair{&kube::resources::kDeviceClasses, ClusterView::DeviceKind::kClass},
          std::pair{&kube::resources::kResourceClaims, ClusterView::DeviceKind::kClaim}})
      device_informers.emplace_back(&informers.Get(*type, storage_options), kind);
    // DeviceTaintRules are served from Kubernetes 1.37 (before, behind a
    // gate): where they are not, devices carry their slices' taints only.
    if (std::string why = Unlistable(client_, kube::resources::kDeviceTaintRules); why.empty())
      device_informers.emplace_back(
          &informers.Get(kube::resources::kDeviceTaintRules, storage_options),
          ClusterView::DeviceKind::kTaintRule);
    else
      LOG(WARNING) << "DeviceTaintRules cannot be read (" << why
                   << "); devices carry only their ResourceSlices' taints";
  }

  kube::Client& bookkeeping =
      options_.bookkeeping_client != nullptr ? *options_.bookkeeping_client : client_;
  // Status is compared with what the informers show, so a re-created Queue
  // or PodGroup gets its status back.
  status_ = std::make_unique<StatusWriter>(
      bookkeeping, [&queues](const std::string& key) { return queues.cache().Get(key); },
      [&podgroups](const std::string& key) { return podgroups.cache().Get(key); },
      options_.registry, std::string(pool_.Name()));
  binder_ = std::make_unique<Binder>(client_, view_, reservations_, events_,
                                     BinderOptions{.workers = flags_.bind_workers,
                                                   .registry = options_.registry,
                                                   .scheduled_events = &scheduled_events_,
                                                   .node_pool = std::string(pool_.Name()),
                                                   .hami_core = flags_.hami_core});
  pending_ = std::make_unique<PendingEvents>(
      bookkeeping, events_, [&pods](const std::string& key) { return pods.cache().Get(key); });
  not_ready_ = std::make_unique<PendingEvents>(
      bookkeeping, events_,
      [&podgroups](const std::string& key) { return podgroups.cache().Get(key); },
      PendingEventsOptions{.event_type = "Normal", .event_reason = "NotReady", .mark_pods = false});
  CycleOptions co;
  co.core.policy = sched::ParsePolicy(flags_.policy).value();
  co.core.consolidate = co.core.policy != sched::PlacementPolicy::kSpread;
  co.core.stale_gang_grace_s = flags_.default_staleness_grace_period.count();
  if (co.core.policy == sched::PlacementPolicy::kFgd) {
    // fgd measures fragmentation against the shapes of the pods seen so
    // far, learned across cycles (workload_model.h).
    auto model = std::make_shared<sched::WorkloadModel>();
    view_.LearnWorkload(model);
    co.core.workload = std::move(model);
  }
  co.core.usage_k_milli = std::llround(flags_.usage_k * 1000);
  const bool cron_window = flags_.usage_window_type == "cron";
  if (flags_.usage_window.count() > 0 || cron_window) {
    co.usage_history = UsageHistory::Params{
        .window_s = flags_.usage_window.count(),
        .resolution_s = cron_window
                            ? flags_.usage_resolution.count()
                            : std::min(flags_.usage_resolution, flags_.usage_window).count(),
        .half_life_s = flags_.usage_half_life.count(),
        .tumbling_start =
            flags_.usage_window_type == "tumbling" ? flags_.usage_window_start : std::nullopt};
    // ParseFlags read it already.
    if (cron_window) co.usage_history->cron = CronSchedule::Parse(flags_.usage_cron).value();
    // Beside the Lease, so a new leader of the shard finds it.
    usage_store_ = std::make_unique<ConfigMapUsageStore>(bookkeeping, flags_.leader_elect_namespace,
                                                         LeaseName(pool_) + "-usage");
    co.usage_store = usage_store_.get();
  }
  co.period = flags_.cycle_period;
  co.registry = options_.registry;
  cycle_ = std::make_unique<SchedulingCycle>(view_, *binder_, evictor_, reservations_, *status_,
                                             *pending_, *not_ready_, co);
  grouper_ = std::make_unique<PodGrouper>(
      bookkeeping, pods,
      [&podgroups](const std::string& key) { return podgroups.cache().Get(key); }, events_,
      flags_.scheduler_name, std::chrono::seconds(5), kube::SystemNow, pool_);
  manager_->AddController({.name = "pod-grouper", .workers = 4}, *grouper_).Watch(pods);

  pods.AddEventHandler({.on_add =
                            [this](const kube::ObjectPtr& o) {
                              view_.UpsertPod(*o);
                              cycle_->Wake();
                            },
                        .on_update =
                            [this](const kube::ObjectPtr& old, const kube::ObjectPtr& o) {
                              if (old == o) return;  // resync: nothing new
                              view_.UpsertPod(*o);
                              if (kube::IsBeingDeleted(*o) != kube::IsBeingDeleted(*old) ||
                                  HasSchedulingGates(*o) != HasSchedulingGates(*old))
                                cycle_->Wake();
                            },
                        .on_delete =
                            [this](const kube::ObjectPtr& o) {
                              view_.DeletePod(*o);
                              cycle_->Wake();
                            }});
  nodes.AddEventHandler(KeepInView(view_, &ClusterView::UpsertNode, &ClusterView::DeleteNode));
  queues.AddEventHandler(
      KeepInView(view_, &ClusterView::UpsertQueue, &ClusterView::DeleteQueue, cycle_.get()));
  podgroups.AddEventHandler(
      KeepInView(view_, &ClusterView::UpsertPodGroup, &ClusterView::DeletePodGroup, cycle_.get()));
  topologies.AddEventHandler(
      KeepInView(view_, &ClusterView::UpsertTopology, &ClusterView::DeleteTopology, cycle_.get()));
  priority_classes.AddEventHandler(KeepInView(view_, &ClusterView::UpsertPriorityClass,
                                              &ClusterView::DeletePriorityClass, cycle_.get()));
  // A ConfigMap wakes the cycle only when a waiting pod needs it: sharing
  // pods' binds alone make two each.
  configmaps.AddEventHandler(
      {.on_add =
           [this](const kube::ObjectPtr& o) {
             if (view_.UpsertConfigMap(*o)) cycle_->Wake();
           },
       .on_delete = [this](const kube::ObjectPtr& o) { view_.DeleteConfigMap(*o); }});
  // A namespace wakes the cycle only when a pod's term reads its labels.
  namespaces.AddEventHandler(WakeWhenWorth(
      [this](const rapidjson::Value& o) { return view_.UpsertNamespace(o); },
      [this](const rapidjson::Value& o) { return view_.DeleteNamespace(o); }, *cycle_));
  // Claims, volumes, classes, CSI drivers and capacities wake the cycle
  // only while a pod waits on its claims.
  auto keep_storage = [this](ClusterView::StorageKind kind) {
    return WakeWhenWorth(
        [this, kind](const rapidjson::Value& o) { return view_.UpsertStorage(kind, o); },
        [this, kind](const rapidjson::Value& o) { return view_.DeleteStorage(kind, o); }, *cycle_);
  };
  claims.AddEventHandler(keep_storage(ClusterView::StorageKind::kClaim));
  volumes.AddEventHandler(keep_storage(ClusterView::StorageKind::kVolume));
  storage_classes.AddEventHandler(keep_storage(ClusterView::StorageKind::kClass));
  csi_drivers.AddEventHandler(keep_storage(ClusterView::StorageKind::kDriver));
  csi_capacities.AddEventHandler(keep_storage(ClusterView::StorageKind::kCapacity));
  // A CSINode wakes the cycle when it changes a node's attach limits.
  csi_nodes.AddEventHandler(
      WakeWhenWorth([this](const rapidjson::Value& o) { return view_.UpsertCsiNode(o); },
                    [this](const rapidjson::Value& o) { return view_.DeleteCsiNode(o); }, *cycle_));

  // Slices, classes, claims and taint rules wake the cycle when what nodes
  // have free changes, or while a pod waits on its claims.
  for (auto [informer, kind] : device_informers)
    informer->AddEventHandler(WakeWhenWorth(
        [this, kind](const rapidjson::Value& o) { return view_.UpsertDevices(kind, o); },
        [this, kind](const rapidjson::Value& o) { return view_.DeleteDevices(kind, o); }, *cycle_));

  manager_->AddRunnable("scheduling-cycle", [this](kube::Cancellation& stop) {
    {
      std::lock_guard lock(mu_);
      scheduling_ = true;
    }
    cv_.notify_all();
    cycle_->Run(stop);
    // What was decided is carried out before the next leader decides again.
    binder_->WaitIdle();
  });
  manager_->AddRunnable("status-writer", [this](kube::Cancellation& stop) {
    status_->Run(stop, flags_.status_period);
  });
  if (!flags_.webhook_address.empty()) {
    VT_ASSIGN_OR_RETURN(HostPort addr, ParseAddressFlag("webhook-address", flags_.webhook_address));
    WebhookOptions wo;
    wo.host = addr.host;
    wo.port = addr.port;
    wo.url = flags_.webhook_url;
    wo.cert_file = flags_.webhook_cert;
    wo.key_file = flags_.webhook_key;
    wo.reservation_namespace = flags_.reservation_namespace;
    wo.admission.scheduler_name = flags_.scheduler_name;
    wo.admission.gpu_fraction_runtime_class = flags_.gpu_fraction_runtime_class;
    wo.admission.block_visible_devices = flags_.block_nvidia_visible_devices;
    wo.admission.hami_core = flags_.hami_core;
    if (flags_.enable_quota_validation) {
      // The cache may not have a Queue written a moment ago (a parent
      // applied just before its children): then the API server is asked.
      wo.admission.queues =
          [&queues, this](const std::string& name) -> std::shared_ptr<const rapidjson::Value> {
        if (kube::ObjectPtr cached = queues.cache().Get(name)) return cached;
        Result<kube::Object> fetched = client_.Get(kube::resources::kQueues, "", name);
        if (!fetched.ok()) {
          if (fetched.status().code() != StatusCode::kNotFound)
            LOG(WARNING) << "reading Queue " << name << ": " << fetched.status().ToString();
          return nullptr;
        }
        return std::make_shared<const kube::Object>(std::move(fetched).value());
      };
    }
    if (!flags_.gpu_fraction_runtime_class.empty()) {
      kube::SharedInformer& runtime_classes = informers.Get(kube::resources::kRuntimeClasses);
      wo.admission.runtime_class_exists = [&runtime_classes](const std::string& name) {
        return runtime_classes.cache().Get(name) != nullptr;
      };
    }
    webhook_ = std::make_unique<WebhookServer>(wo);
  }
  return Status::Ok();
}

Status SchedulerApp::Run() {
  Status result = [&]() -> Status {
    VT_RETURN_IF_ERROR(reservations_.EnsureNamespace().WithContext("reservation namespace"));
    if (webhook_) {
      VT_RETURN_IF_ERROR(webhook_->Start());
      VT_RETURN_IF_ERROR(
          webhook_->Register(client_).WithContext("registering the admission webhook"));
    }
    return manager_->Run();
  }();
  if (webhook_) webhook_->Stop();
  {
    std::lock_guard lock(mu_);
    run_result_ = result;
  }
  cv_.notify_all();
  return result;
}

Status SchedulerApp::Start() {
  runner_ = std::thread([this] {
    Status s = Run();
    if (!s.ok()) LOG(ERROR) << "vtenant-scheduler: " << s.ToString();
  });
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return scheduling_ || run_result_.has_value(); });
  if (run_result_ && !run_result_->ok()) return *run_result_;
  if (run_result_) return FailedPrecondition("stopped before scheduling started");
  return Status::Ok();
}

void SchedulerApp::Stop() {
  if (manager_) manager_->Stop();
  if (runner_.joinable()) runner_.join();
}

}  // namespace vtenant::scheduler

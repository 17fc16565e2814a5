#include "scheduler/scheduler_app.h"

#include <glog/logging.h>
#include <unistd.h>

#include "scheduler-core/options.h"

namespace vtenant::scheduler {
namespace {

kube::InformerOptions Everything() {
  kube::InformerOptions o;
  o.resync_period = std::chrono::minutes(5);
  return o;
}

std::string Hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "vtenant-scheduler";
  return std::string(buf) + "-" + std::to_string(getpid());
}

}  // namespace

Result<std::unique_ptr<SchedulerApp>> SchedulerApp::Create(kube::Client& client,
                                                           SchedulerFlags flags,
                                                           kube::Registry* registry) {
  VT_RETURN_IF_ERROR(sched::ParsePolicy(flags.policy).status().WithContext("--policy"));
  return std::unique_ptr<SchedulerApp>(new SchedulerApp(client, std::move(flags), registry));
}

SchedulerApp::SchedulerApp(kube::Client& client, SchedulerFlags flags, kube::Registry* registry)
    : client_(client),
      flags_(std::move(flags)),
      registry_(registry),
      view_(PodTranslatorOptions{flags_.scheduler_name, flags_.reservation_namespace}),
      events_(client, "vtenant-scheduler"),
      reservations_(client, ReservationOptions{.ns = flags_.reservation_namespace,
                                               .image = flags_.reservation_image}),
      evictor_(client, events_, registry),
      status_(client, registry),
      pods_(client, kube::resources::kPods, Everything()),
      nodes_(client, kube::resources::kNodes, Everything()),
      queues_(client, kube::resources::kQueues, Everything()),
      podgroups_(client, kube::resources::kPodGroups, Everything()) {
  binder_ =
      std::make_unique<Binder>(client, view_, reservations_, events_,
                               BinderOptions{.workers = flags_.bind_workers, .registry = registry});
  pending_ = std::make_unique<PendingEvents>(
      events_, [this](const std::string& key) { return pods_.cache().Get(key); });
  CycleOptions co;
  co.core.policy = sched::ParsePolicy(flags_.policy).value();
  co.core.consolidate = co.core.policy != sched::PlacementPolicy::kSpread;
  co.period = flags_.cycle_period;
  co.registry = registry;
  cycle_ = std::make_unique<SchedulingCycle>(view_, *binder_, evictor_, reservations_, status_,
                                             *pending_, co);
  grouper_ = std::make_unique<PodGrouper>(client, pods_, flags_.scheduler_name);
  grouper_controller_ = std::make_unique<kube::Controller>(
      kube::ControllerOptions{.name = "pod-grouper", .workers = 4, .registry = registry},
      *grouper_);
  grouper_controller_->Watch(pods_);

  pods_.AddEventHandler({.on_add =
                             [this](const kube::ObjectPtr& o) {
                               view_.UpsertPod(*o);
                               cycle_->Wake();
                             },
                         .on_update =
                             [this](const kube::ObjectPtr& old, const kube::ObjectPtr& o) {
                               if (old == o) return;  // resync: nothing new
                               view_.UpsertPod(*o);
                               if (kube::IsBeingDeleted(*o) != kube::IsBeingDeleted(*old))
                                 cycle_->Wake();
                             },
                         .on_delete =
                             [this](const kube::ObjectPtr& o) {
                               view_.DeletePod(*o);
                               cycle_->Wake();
                             }});
  nodes_.AddEventHandler({.on_add = [this](const kube::ObjectPtr& o) { view_.UpsertNode(*o); },
                          .on_update = [this](const kube::ObjectPtr&,
                                              const kube::ObjectPtr& o) { view_.UpsertNode(*o); },
                          .on_delete = [this](const kube::ObjectPtr& o) { view_.DeleteNode(*o); }});
  queues_.AddEventHandler(
      {.on_add =
           [this](const kube::ObjectPtr& o) {
             view_.UpsertQueue(*o);
             cycle_->Wake();
           },
       .on_update = [this](const kube::ObjectPtr&,
                           const kube::ObjectPtr& o) { view_.UpsertQueue(*o); },
       .on_delete = [this](const kube::ObjectPtr& o) { view_.DeleteQueue(*o); }});
  podgroups_.AddEventHandler(
      {.on_add =
           [this](const kube::ObjectPtr& o) {
             view_.UpsertPodGroup(*o);
             cycle_->Wake();
           },
       .on_update = [this](const kube::ObjectPtr&,
                           const kube::ObjectPtr& o) { view_.UpsertPodGroup(*o); },
       .on_delete = [this](const kube::ObjectPtr& o) { view_.DeletePodGroup(*o); }});
}

Status SchedulerApp::Start() {
  if (started_) return FailedPrecondition("already started");
  started_ = true;
  VT_RETURN_IF_ERROR(reservations_.EnsureNamespace().WithContext("reservation namespace"));
  if (!flags_.webhook_address.empty()) {
    VT_ASSIGN_OR_RETURN(auto addr, SplitAddress(flags_.webhook_address, "webhook-address"));
    WebhookOptions wo;
    wo.host = addr.first;
    wo.port = addr.second;
    wo.url = flags_.webhook_url;
    wo.cert_file = flags_.webhook_cert;
    wo.key_file = flags_.webhook_key;
    wo.reservation_namespace = flags_.reservation_namespace;
    wo.admission.scheduler_name = flags_.scheduler_name;
    webhook_ = std::make_unique<WebhookServer>(wo);
    VT_RETURN_IF_ERROR(webhook_->Start());
    VT_RETURN_IF_ERROR(
        webhook_->Register(client_).WithContext("registering the admission webhook"));
  }
  for (kube::SharedInformer* i : {&nodes_, &queues_, &podgroups_, &pods_})
    VT_RETURN_IF_ERROR(i->Run());
  if (!flags_.health_address.empty()) {
    VT_ASSIGN_OR_RETURN(auto addr, SplitAddress(flags_.health_address, "health-address"));
    health_ = std::make_unique<kube::HealthServer>(*registry_);
    health_->AddReadyCheck("informers-synced", [this] {
      for (kube::SharedInformer* i : {&nodes_, &queues_, &podgroups_, &pods_})
        if (!i->HasSynced()) return Unavailable(i->type().resource + " not listed yet");
      return Status::Ok();
    });
    health_->AddReadyCheck("leader", [this] {
      return leading_ || !flags_.leader_elect ? Status::Ok()
                                              : Unavailable("not the leader (standby)");
    });
    VT_RETURN_IF_ERROR(health_->Start(addr.first, addr.second));
  }
  for (kube::SharedInformer* i : {&nodes_, &queues_, &podgroups_, &pods_})
    if (!i->WaitForSynced(std::chrono::minutes(2)))
      return Unavailable(i->type().resource + ": informer did not sync within 2 minutes");
  if (!flags_.leader_elect) {
    StartLeading();
    return Status::Ok();
  }
  kube::LeaderElectionConfig le;
  le.lease_namespace = flags_.leader_elect_namespace;
  le.lease_name = "vtenant-scheduler";
  le.identity = Hostname();
  le.callbacks.on_started_leading = [this] { StartLeading(); };
  le.callbacks.on_stopped_leading = [this] { StopLeading(); };
  VT_ASSIGN_OR_RETURN(elector_, kube::LeaderElector::Create(client_, le));
  return elector_->Run();
}

void SchedulerApp::StartLeading() {
  std::lock_guard lock(lead_mu_);
  if (leading_) return;
  LOG(INFO) << "leading: scheduling starts";
  lead_cancel_ = std::make_unique<kube::Cancellation>();
  kube::Cancellation* cancel = lead_cancel_.get();
  cycle_thread_ = std::thread([this, cancel] { cycle_->Run(*cancel); });
  status_thread_ = std::thread([this, cancel] { status_.Run(*cancel, flags_.status_period); });
  grouper_thread_ = std::thread([this] { grouper_controller_->Run(); });
  leading_ = true;
}

void SchedulerApp::StopLeading() {
  std::lock_guard lock(lead_mu_);
  if (!leading_) return;
  LOG(INFO) << "no longer leading: scheduling stops";
  lead_cancel_->Cancel();
  cycle_thread_.join();
  binder_->WaitIdle();
  status_thread_.join();
  grouper_controller_->Stop();
  grouper_thread_.join();
  leading_ = false;
}

void SchedulerApp::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (elector_) elector_->Stop();  // runs StopLeading while leading
  StopLeading();
  if (health_) health_->Stop();
  for (kube::SharedInformer* i : {&pods_, &podgroups_, &queues_, &nodes_}) i->Stop();
  if (webhook_) webhook_->Stop();
}

}  // namespace vtenant::scheduler

#include "kube/manager.h"

#include <glog/logging.h>
#include <unistd.h>

#include <sstream>

#include "base/host_port.h"
#include "kube/process_metrics.h"

namespace vtenant::kube {
namespace {

std::string DefaultIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "unknown");
  return std::string(host) + "_" + std::to_string(getpid());
}

}  // namespace

Result<std::unique_ptr<Manager>> Manager::Create(Client& primary, ManagerOptions options) {
  if (options.name.empty()) return InvalidArgument("a manager needs a name");
  std::optional<HostPort> health_listen;
  if (!options.health_address.empty()) {
    Result<HostPort> parsed = ParseListenAddress(options.health_address);
    VT_RETURN_IF_ERROR(parsed.status().WithContext("health address"));
    health_listen = *parsed;
  }
  std::unique_ptr<Manager> manager(new Manager(primary, std::move(options)));
  manager->health_listen_ = std::move(health_listen);
  if (manager->options_.leader_election) {
    LeaderElectionConfig config = *manager->options_.leader_election;
    if (config.lease_name.empty()) config.lease_name = manager->options_.name;
    if (config.identity.empty()) config.identity = DefaultIdentity();
    config.clock = manager->options_.clock;
    Manager* m = manager.get();
    config.callbacks.on_started_leading = [m] { m->OnStartedLeading(); };
    config.callbacks.on_stopped_leading = [m] { m->OnStoppedLeading(); };
    VT_ASSIGN_OR_RETURN(manager->elector_, LeaderElector::Create(primary, std::move(config)));
  }
  return manager;
}

Manager::Manager(Client& primary, ManagerOptions options)
    : options_(std::move(options)), health_(*options_.registry) {
  if (options_.shared_event_dispatcher) {
    dispatcher_ = std::make_unique<EventDispatcher>(options_.informer_defaults.clock);
    options_.informer_defaults.dispatcher = dispatcher_.get();
  }
  clusters_.push_back(
      std::make_unique<ClusterHandle>("primary", primary, options_.informer_defaults));
  Result<Family<Gauge>*> leader = options_.registry->AddGauge(
      "vtenant_leader", "1 while this replica leads, else 0.", {"manager"});
  if (leader.ok()) leader_gauge_ = &(*leader)->WithLabelValues({options_.name});
  health_.AddHealthCheck("ping", [] { return Status::Ok(); });
  health_.AddReadyCheck("informers", [this] { return CachesHealthy(); });
  if (options_.compete_again_after_lost_lease) {
    health_.AddReadyCheck("leader", [this] { return LeaseHealthy(); });
  }
  health_.AddReadyCheck("shutdown",
                        [this] { return stopping_ ? Unavailable("shutting down") : Status::Ok(); });
  if (Status process = RegisterProcessMetrics(*options_.registry); !process.ok()) {
    LOG(WARNING) << options_.name << ": no process metrics: " << process.ToString();
  }
  Result<Family<Gauge>*> objects = options_.registry->AddGauge(
      "vtenant_informer_objects", "Objects the informers' caches hold, by cluster and resource.",
      {"cluster", "resource"});
  if (objects.ok()) {
    options_.registry->SetCollector(CollectorName(), [this, family = *objects] {
      std::lock_guard lock(mu_);
      for (const std::unique_ptr<ClusterHandle>& cluster : clusters_) {
        for (const auto& [resource, n] : cluster->informers().CachedObjects()) {
          family->WithLabelValues({cluster->name(), resource}).Set(static_cast<double>(n));
        }
      }
    });
  }
}

std::string Manager::CollectorName() const {
  std::ostringstream name;
  name << "informers of manager " << options_.name << " at " << this;
  return name.str();
}

Manager::~Manager() {
  options_.registry->RemoveCollector(CollectorName());
  Stop();
  std::unique_lock lock(mu_);
  // Run may still be shutting down on another thread.
  cv_.wait(lock, [&] { return !ran_ || run_finished_; });
}

ClusterHandle& Manager::AddCluster(std::string name, Client& client) {
  std::lock_guard lock(mu_);  // the informer collector reads clusters_
  clusters_.push_back(
      std::make_unique<ClusterHandle>(std::move(name), client, options_.informer_defaults));
  return *clusters_.back();
}

Controller& Manager::AddController(ControllerOptions options, Reconciler& reconciler) {
  if (options.registry == &DefaultRegistry()) options.registry = options_.registry;
  if (options.clock == &DefaultClock()) options.clock = options_.clock;
  controllers_.push_back(std::make_unique<Controller>(options, reconciler));
  Controller* controller = controllers_.back().get();
  AddRunnable(
      "controller " + options.name,
      [controller, runs = std::make_shared<int>(0)](Cancellation& stop) {
        // Run again after a lost Lease was won back: from the caches.
        if ((*runs)++ > 0) controller->Resume();
        CancellationRegistration on_stop(&stop, [controller] { controller->Stop(); });
        controller->Run();
      },
      /*needs_leader=*/true);
  return *controller;
}

void Manager::AddRunnable(std::string name, Runnable run, bool needs_leader) {
  auto work = std::make_shared<Work>();
  work->name = std::move(name);
  work->run = std::move(run);
  work->needs_leader = needs_leader;
  std::lock_guard lock(mu_);
  work_.push_back(std::move(work));
}

void Manager::AddHealthCheck(std::string name, HealthServer::Check check) {
  health_.AddHealthCheck(std::move(name), std::move(check));
}

void Manager::AddReadyCheck(std::string name, HealthServer::Check check) {
  health_.AddReadyCheck(std::move(name), std::move(check));
}

bool Manager::IsLeader() const { return leading_.load(); }

Status Manager::CachesHealthy() const {
  std::string problems;
  for (const auto& cluster : clusters_) {
    Status status = cluster->informers().Healthy();
    if (status.ok()) continue;
    if (!problems.empty()) problems += "; ";
    problems += cluster->name() + ": " + status.message();
  }
  return problems.empty() ? Status::Ok() : Unavailable(problems);
}

Status Manager::LeaseHealthy() const {
  if (lease_lost_) return Unavailable("lost the leader lease; competing for it again");
  return Status::Ok();
}

void Manager::OnStartedLeading() {
  LOG(INFO) << options_.name << ": leading; starting controllers";
  leading_ = true;
  lease_lost_ = false;
  if (leader_gauge_ != nullptr) leader_gauge_->Set(1);
  StartWork(/*leader_work=*/true);
}

void Manager::OnStoppedLeading() {
  // Before leading_ turns false, so whoever sees this replica not leading
  // also sees it not ready.
  if (!stopping_ && options_.compete_again_after_lost_lease) lease_lost_ = true;
  leading_ = false;
  if (leader_gauge_ != nullptr) leader_gauge_->Set(0);
  if (stopping_) return;  // our own shutdown: the work is already stopping
  if (!options_.compete_again_after_lost_lease) {
    LOG(ERROR) << options_.name << ": lost the leader lease; stopping";
    CancelWork(/*leader_work=*/true);
    RequestStop(Unavailable("lost the leader lease"));
    return;
  }
  LOG(WARNING) << options_.name
               << ": lost the leader lease; stopping controllers, keeping caches, competing again";
  // The elector competes again only once this returns, so the work of this
  // term has ended before the next term's can start.
  if (!StopLeaderWork()) {
    RequestStop(Status(StatusCode::kTimeout, "leader work still running after the lease was lost"));
  }
}

bool Manager::StopLeaderWork() {
  CancelWork(/*leader_work=*/true);
  std::lock_guard join(join_mu_);
  bool finished =
      JoinWork(/*leader_work=*/true, std::chrono::steady_clock::now() + options_.shutdown_timeout);
  std::lock_guard lock(mu_);
  for (auto& work : work_) {
    if (!work->needs_leader || work->thread.joinable()) continue;
    // A Cancellation fires once: the next term gets a fresh item.
    auto fresh = std::make_shared<Work>();
    fresh->name = work->name;
    fresh->run = work->run;
    fresh->needs_leader = true;
    work = std::move(fresh);
  }
  return finished;
}

void Manager::StartWork(bool leader_work) {
  std::lock_guard lock(mu_);
  if (stop_requested_) return;
  for (auto& work : work_) {
    if (work->needs_leader != leader_work || work->thread.joinable()) continue;
    work->thread = std::thread([w = work, completion = completion_] {
      w->run(w->stop);
      std::lock_guard done(completion->mu);
      w->finished = true;
      completion->cv.notify_all();
    });
  }
}

void Manager::CancelWork(std::optional<bool> leader_work) {
  std::vector<Work*> to_cancel;
  {
    std::lock_guard lock(mu_);
    for (auto& work : work_) {
      if (!leader_work || work->needs_leader == *leader_work) to_cancel.push_back(work.get());
    }
  }
  for (Work* work : to_cancel) work->stop.Cancel();
}

bool Manager::JoinWork(std::optional<bool> leader_work,
                       std::chrono::steady_clock::time_point deadline) {
  std::vector<std::shared_ptr<Work>> started;
  {
    std::lock_guard lock(mu_);
    for (auto& work : work_) {
      if (leader_work && work->needs_leader != *leader_work) continue;
      if (work->thread.joinable()) started.push_back(work);
    }
  }
  bool all_done = false;
  {
    std::unique_lock lock(completion_->mu);
    all_done = completion_->cv.wait_until(lock, deadline, [&] {
      for (auto& work : started) {
        if (!work->finished) return false;
      }
      return true;
    });
  }
  for (auto& work : started) {
    if (!work->thread.joinable()) continue;
    if (work->finished) {
      work->thread.join();
    } else {
      LOG(ERROR) << options_.name << ": " << work->name
                 << " did not finish within the shutdown timeout";
      work->thread.detach();
    }
  }
  return all_done;
}

void Manager::RequestStop(Status why) {
  std::lock_guard lock(mu_);
  if (stop_requested_) return;
  stop_requested_ = true;
  stop_status_ = std::move(why);
  cv_.notify_all();
}

void Manager::Stop() { RequestStop(Status::Ok()); }

Status Manager::Run() {
  {
    std::lock_guard lock(mu_);
    if (ran_) return FailedPrecondition("Manager::Run called twice");
    ran_ = true;
  }
  if (options_.handle_signals) {
    Result<std::unique_ptr<ShutdownSignal>> signal = ShutdownSignal::Install([this] { Stop(); });
    if (signal.ok()) {
      signal_ = std::move(*signal);
    } else {
      LOG(WARNING) << options_.name << ": signals not handled: " << signal.status().ToString();
    }
  }
  if (health_listen_) {
    auto [host, port] = *health_listen_;
    Status started = health_.Start(host, port);
    if (!started.ok()) {
      RequestStop(started.WithContext("health server on " + options_.health_address));
      Shutdown();
      return stop_status_;
    }
    LOG(INFO) << options_.name << ": serving /healthz, /readyz, /metrics on " << health_.url();
  }
  for (auto& cluster : clusters_) {
    Status started = cluster->informers().Start();
    if (!started.ok()) {
      RequestStop(started.WithContext("informers of " + cluster->name()));
      Shutdown();
      return stop_status_;
    }
  }
  // Controllers act on caches; until those hold the server's state, a
  // reconcile would see a world with things missing and "repair" it.
  while (true) {
    bool synced = true;
    for (auto& cluster : clusters_) {
      synced = synced && cluster->informers().WaitForSynced(std::chrono::milliseconds(100));
    }
    std::unique_lock lock(mu_);
    if (stop_requested_) break;
    if (synced) break;
  }
  LOG(INFO) << options_.name << ": caches synced";
  StartWork(/*leader_work=*/false);
  if (elector_) {
    Status competing = elector_->Run();
    if (!competing.ok()) RequestStop(competing);
  } else {
    leading_ = true;
    if (leader_gauge_ != nullptr) leader_gauge_->Set(1);
    StartWork(/*leader_work=*/true);
  }
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return stop_requested_; });
  }
  Shutdown();
  return stop_status_;
}

void Manager::Shutdown() {
  LOG(INFO) << options_.name << ": shutting down";
  stopping_ = true;
  const auto deadline = std::chrono::steady_clock::now() + options_.shutdown_timeout;
  // New keys stop here; reconciles already running finish.
  CancelWork(std::nullopt);
  bool finished = false;
  {
    std::lock_guard join(join_mu_);
    finished = JoinWork(std::nullopt, deadline);
  }
  // The Lease goes only once no reconcile runs, so two leaders never act
  // at once.
  if (elector_) elector_->Stop();
  leading_ = false;
  if (leader_gauge_ != nullptr) leader_gauge_->Set(0);
  for (auto& cluster : clusters_) cluster->informers().Stop();
  health_.Stop();
  signal_.reset();
  if (!finished) {
    std::lock_guard lock(mu_);
    if (stop_status_.ok()) {
      stop_status_ = Status(StatusCode::kTimeout, "work still running after the shutdown timeout");
    }
  }
  LOG(INFO) << options_.name << ": stopped";
  std::lock_guard lock(mu_);
  run_finished_ = true;
  cv_.notify_all();
}

}  // namespace vtenant::kube

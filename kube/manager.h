// Manager: what one vtenant program is made of, run and stopped in order, as
// controller-runtime's manager does it.
//
// A program builds one Manager around its main API server, asks its
// informer factory for the informers it needs, adds its controllers and
// other long-running work, and calls Run. Run then:
//   1. serves /healthz, /readyz and /metrics (when an address is set);
//      /readyz fails until every informer has synced, whenever one has lost
//      its API server, once shutdown has begun, and (below) while a lost
//      Lease is being competed for again;
//   2. starts every informer of every cluster and waits for their caches;
//   3. starts the work that runs on every replica;
//   4. competes for the leader Lease (when configured) and runs the
//      controllers and leader-only work only while leading;
//   5. on SIGTERM/SIGINT or Stop(): stops handing out new keys, lets
//      in-flight reconciles and runnables finish up to shutdown_timeout,
//      releases the Lease, stops the informers and the health server.
// A leader that loses its Lease stops everything and Run returns
// Unavailable: the process should exit and be restarted, as client-go
// programs do, rather than keep acting on a lease it no longer holds.
// With ManagerOptions::compete_again_after_lost_lease it instead stops
// handing out keys, lets in-flight reconciles finish, stops the controllers
// and leader-only work, and competes again while the informers keep their
// caches; /readyz fails until it leads again, and then the controllers run
// again from a replay of those caches (level-triggered: nothing is
// relisted, nothing missed). For a program that must ride out an API server
// outage long enough to cost the Lease (the syncer).
//
// A program that talks to more than one API server (the syncer: its
// tenant's virtual cluster and the host) adds the others with AddCluster;
// each cluster has its own informer factory, all started and checked alike.
//
// Typical use:
//   VT_ASSIGN_OR_RETURN(auto manager, Manager::Create(client, {
//       .name = "vtenant-operator", .health_address = "0.0.0.0:8081",
//       .leader_election = LeaderElectionConfig{.lease_namespace = "vtenant-system",
//                                               .lease_name = "vtenant-operator"}}));
//   SharedInformer& tenants = manager->cluster().informers().Get(resources::kTenants);
//   Controller& controller = manager->AddController({.name = "tenant"}, reconciler);
//   controller.Watch(tenants);
//   return manager->Run();
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/host_port.h"
#include "base/status.h"
#include "kube/cancellation.h"
#include "kube/client.h"
#include "kube/clock.h"
#include "kube/controller.h"
#include "kube/event_dispatcher.h"
#include "kube/health_server.h"
#include "kube/informer_factory.h"
#include "kube/leader_election.h"
#include "kube/metrics.h"
#include "kube/shutdown_signal.h"

namespace vtenant::kube {

struct ManagerOptions {
  // The program's name: logs, metrics labels, the default Lease name.
  std::string name;
  // "host:port" for /healthz, /readyz and /metrics (":8081" is every
  // interface); empty serves none.
  std::string health_address;
  // Unset: this replica always leads. Set: lease_name defaults to `name`,
  // identity to "<hostname>_<pid>"; the callbacks are the manager's own.
  std::optional<LeaderElectionConfig> leader_election;
  // How long in-flight reconciles and runnables may take to finish once
  // shutdown begins, or once a lost Lease stops them.
  std::chrono::milliseconds shutdown_timeout{30000};
  // With leader election: on losing the Lease, stop the leader's work, keep
  // the caches and compete again (see the top of this file) instead of
  // ending Run with Unavailable. When the leader's work does not finish
  // within shutdown_timeout, Run ends with Timeout as on shutdown.
  bool compete_again_after_lost_lease = false;
  // Deliver the events of every informer of every cluster on one thread
  // the manager owns (kube::EventDispatcher), instead of one thread per
  // informer; replaces informer_defaults.dispatcher. For a process with
  // many informers whose handlers only queue keys.
  bool shared_event_dispatcher = false;
  // Turn SIGTERM and SIGINT into Stop() while Run runs. Tests turn it off.
  bool handle_signals = true;
  // Defaults of every informer the factories create (resync period, ...).
  InformerOptions informer_defaults;
  Registry* registry = &DefaultRegistry();
  Clock* clock = &DefaultClock();
};

// One API server a program talks to: its client and its shared informers.
class ClusterHandle {
 public:
  ClusterHandle(std::string name, Client& client, const InformerOptions& informer_defaults)
      : name_(std::move(name)), client_(client), informers_(client, informer_defaults) {}

  const std::string& name() const { return name_; }
  Client& client() { return client_; }
  InformerFactory& informers() { return informers_; }

 private:
  const std::string name_;
  Client& client_;
  InformerFactory informers_;
};

class Manager {
 public:
  // Work that runs until `stop` fires; it must return promptly once it does.
  using Runnable = std::function<void(Cancellation& stop)>;

  // `primary` must outlive the manager; it is also the client of the Lease.
  // Fails with InvalidArgument for an empty name or an unparsable
  // health_address, or when the leader election config is invalid.
  static Result<std::unique_ptr<Manager>> Create(Client& primary, ManagerOptions options);

  // Stops if still running.
  ~Manager();

  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // The primary cluster (named "primary").
  ClusterHandle& cluster() { return *clusters_.front(); }

  // Adds another API server. `client` must outlive the manager. Call before
  // Run.
  ClusterHandle& AddCluster(std::string name, Client& client);

  // Adds a controller, run while leading with its workers. Wire it to
  // informers with Controller::Watch before Run. `reconciler` must outlive
  // the manager. The registry and clock of the options default to the
  // manager's.
  Controller& AddController(ControllerOptions options, Reconciler& reconciler);

  // Adds work that runs on its own thread once the caches have synced:
  // while leading when `needs_leader`, else on every replica.
  void AddRunnable(std::string name, Runnable run, bool needs_leader = true);

  // Checks added to /healthz (both) or /readyz only.
  void AddHealthCheck(std::string name, HealthServer::Check check);
  void AddReadyCheck(std::string name, HealthServer::Check check);

  // Runs as described above; blocks until shutdown is complete. Returns OK
  // after a requested stop, Unavailable when the Lease was lost, Timeout
  // when work did not finish within shutdown_timeout (its threads are left
  // running and the program should exit), or the error that kept it from
  // starting (e.g. the health port is taken). Runs once: a second call
  // fails with FailedPrecondition.
  Status Run();

  // Begins the graceful shutdown; Run returns once it is done. Safe from
  // any thread, signal watchers and callbacks included. Idempotent.
  void Stop();

  // Whether this replica leads now. Without leader election: from the
  // moment Run has synced the caches until shutdown.
  bool IsLeader() const;

  // OK once every informer of every cluster has synced and is connected.
  Status CachesHealthy() const;

  // OK unless the Lease was lost and not yet won back (only with
  // compete_again_after_lost_lease; a standby that never led is OK).
  Status LeaseHealthy() const;

  Registry& registry() { return *options_.registry; }
  HealthServer& health_server() { return health_; }

 private:
  // Shared with the work's thread, which may outlive the manager when it
  // misses the shutdown timeout.
  struct Work {
    std::string name;
    Runnable run;
    bool needs_leader;
    Cancellation stop;
    std::thread thread;
    std::atomic<bool> finished{false};
  };
  struct Completion {
    std::mutex mu;
    std::condition_variable cv;
  };

  Manager(Client& primary, ManagerOptions options);

  void OnStartedLeading();
  void OnStoppedLeading();
  void StartWork(bool leader_work);
  // After a lost Lease: cancels the leader's work, waits for it up to
  // shutdown_timeout and makes it ready to start again; false when some
  // did not finish (that work is left running, detached).
  bool StopLeaderWork();
  // Cancels work of the given kind (or all) without waiting.
  void CancelWork(std::optional<bool> leader_work);
  // Waits for every started work item of the given kind (or all) until
  // `deadline`; false on timeout.
  bool JoinWork(std::optional<bool> leader_work, std::chrono::steady_clock::time_point deadline);
  void RequestStop(Status why);
  void Shutdown();
  // The name of this manager's collector of vtenant_informer_objects.
  std::string CollectorName() const;

  ManagerOptions options_;
  HealthServer health_;
  // health_address as Create parsed it; empty when there is none.
  std::optional<HostPort> health_listen_;
  // Declared before clusters_: it must outlive their informers.
  std::unique_ptr<EventDispatcher> dispatcher_;
  std::vector<std::unique_ptr<ClusterHandle>> clusters_;
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::vector<std::shared_ptr<Work>> work_;
  std::shared_ptr<Completion> completion_ = std::make_shared<Completion>();
  std::unique_ptr<LeaderElector> elector_;
  std::unique_ptr<ShutdownSignal> signal_;
  Gauge* leader_gauge_ = nullptr;

  // Serialises the joins of a lost Lease with those of the shutdown.
  std::mutex join_mu_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool ran_ = false;
  bool run_finished_ = false;
  bool stop_requested_ = false;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> leading_{false};
  std::atomic<bool> lease_lost_{false};
  Status stop_status_;
};

}  // namespace vtenant::kube

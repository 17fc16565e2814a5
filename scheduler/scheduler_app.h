// SchedulerApp: vtenant-scheduler's pieces wired into a kube::Manager:
// informers feeding the cluster view, the scheduling cycle and the status
// writer (leader only), the pod grouper (a controller, leader only), the
// admission webhook (every replica, so creation never waits on a failover),
// health endpoints and leader election (the Manager's). main() parses flags
// and calls Run; integration tests Start one in-process.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "base/status.h"
#include "kube/async_event_recorder.h"
#include "kube/client.h"
#include "kube/event_recorder.h"
#include "kube/manager.h"
#include "kube/metrics.h"
#include "scheduler/binder.h"
#include "scheduler/cluster_view.h"
#include "scheduler/evictor.h"
#include "scheduler/flags.h"
#include "scheduler/node_pool.h"
#include "scheduler/pending_events.h"
#include "scheduler/pod_grouper.h"
#include "scheduler/reservation.h"
#include "scheduler/scheduling_cycle.h"
#include "scheduler/status_writer.h"
#include "scheduler/usage_store.h"
#include "scheduler/webhook_server.h"

namespace vtenant::scheduler {

struct AppOptions {
  kube::Registry* registry = &kube::DefaultRegistry();
  // SIGTERM/SIGINT stop Run (main); tests stop it themselves.
  bool handle_signals = true;
  // Identity in the leader Lease; empty: "<hostname>_<pid>". Replicas in
  // one process (tests) need distinct ones.
  std::string leader_identity;
  // The client of the bookkeeping writers: the pod grouper's PodGroups and
  // the status writer's Queue and PodGroup status. nullptr: the app's
  // client. One of their own, with its own rate limit, keeps a burst of
  // bookkeeping from delaying binds, as kube-scheduler's Events have a
  // client of their own and KAI's pod grouper runs as a program of its own.
  kube::Client* bookkeeping_client = nullptr;
  // The client of the "Scheduled" Event of every bind, for the same
  // reason; nullptr: the bookkeeping client.
  kube::Client* events_client = nullptr;
};

class SchedulerApp {
 public:
  // `client` must outlive the app. Fails on flags that name something
  // unusable (bad policy, bad address).
  static Result<std::unique_ptr<SchedulerApp>> Create(kube::Client& client, SchedulerFlags flags,
                                                      AppOptions options = {});
  ~SchedulerApp() { Stop(); }

  // Makes the reservation namespace, serves and registers the webhook, then
  // runs the Manager until SIGTERM/SIGINT or Stop(); binds in flight finish
  // and status is written once more on the way out.
  Status Run();

  // Run on a thread of its own; returns once this replica schedules (with
  // --leader-elect: once it leads, so a standby blocks here) or failed to
  // start. For a process that runs the scheduler beside other work (the
  // tests' fixture, bench_scheduler_e2e); vtenant-scheduler calls Run.
  Status Start();
  // Ends Run and waits for it. Idempotent.
  void Stop();

  bool leading() const { return manager_->IsLeader(); }

 private:
  SchedulerApp(kube::Client& client, SchedulerFlags flags, AppOptions options);
  Status Wire();

  kube::Client& client_;
  const SchedulerFlags flags_;
  const AppOptions options_;
  std::unique_ptr<kube::Manager> manager_;
  const NodePool pool_;  // the shard's: --nodepool-label-key, --partition-label-value
  ClusterView view_;
  kube::EventRecorder events_;
  // A bind's "Scheduled" Event: sent by a thread of its own, on the events
  // client, dropped when 1024 wait.
  kube::EventRecorder scheduled_recorder_;
  kube::AsyncEventRecorder scheduled_events_;
  Reservations reservations_;
  Evictor evictor_;
  std::unique_ptr<StatusWriter> status_;
  std::unique_ptr<Binder> binder_;
  std::unique_ptr<PendingEvents> pending_;    // pods that wait
  std::unique_ptr<PendingEvents> not_ready_;  // PodGroups not ready for scheduling
  std::unique_ptr<UsageStore> usage_store_;   // with --usage-window
  std::unique_ptr<SchedulingCycle> cycle_;
  std::unique_ptr<PodGrouper> grouper_;
  std::unique_ptr<WebhookServer> webhook_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool scheduling_ = false;
  std::optional<Status> run_result_;
  std::thread runner_;
};

}  // namespace vtenant::scheduler

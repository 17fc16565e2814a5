// SchedulerApp: vtenant-scheduler's pieces wired together: informers feeding
// the cluster view, the scheduling cycle, the binder, the evictor, the
// status writer, the pod grouper, the admission webhook, health endpoints
// and leader election. main() parses flags and runs one; integration tests
// run one in-process against a real API server.
//
// Until kube::Manager lands this class plays its part (start order, leader
// callbacks, ordered shutdown); it is kept small so the switch is too.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "base/status.h"
#include "kube/cancellation.h"
#include "kube/client.h"
#include "kube/event_recorder.h"
#include "kube/health_server.h"
#include "kube/informer.h"
#include "kube/leader_election.h"
#include "kube/metrics.h"
#include "scheduler/binder.h"
#include "scheduler/cluster_view.h"
#include "scheduler/evictor.h"
#include "scheduler/flags.h"
#include "scheduler/pending_events.h"
#include "scheduler/pod_grouper.h"
#include "scheduler/reservation.h"
#include "scheduler/scheduling_cycle.h"
#include "scheduler/status_writer.h"
#include "scheduler/webhook_server.h"

namespace vtenant::scheduler {

class SchedulerApp {
 public:
  // `client` must outlive the app. Fails on flags that name something
  // unusable (bad policy).
  static Result<std::unique_ptr<SchedulerApp>> Create(
      kube::Client& client, SchedulerFlags flags,
      kube::Registry* registry = &kube::DefaultRegistry());
  ~SchedulerApp() { Stop(); }

  // Starts serving: the webhook (registered), health endpoints, informers
  // (waits for their first lists), then competes for leadership or leads.
  Status Start();

  // Stops scheduling, lets binds in flight finish, writes status once more,
  // stops the informers and servers. Idempotent.
  void Stop();

  bool leading() const { return leading_; }
  ClusterView& view() { return view_; }
  SchedulingCycle& cycle() { return *cycle_; }
  StatusWriter& status_writer() { return status_; }
  Binder& binder() { return *binder_; }

 private:
  SchedulerApp(kube::Client& client, SchedulerFlags flags, kube::Registry* registry);
  void StartLeading();
  void StopLeading();

  kube::Client& client_;
  const SchedulerFlags flags_;
  kube::Registry* registry_;
  ClusterView view_;
  kube::EventRecorder events_;
  Reservations reservations_;
  Evictor evictor_;
  StatusWriter status_;
  std::unique_ptr<Binder> binder_;
  std::unique_ptr<PendingEvents> pending_;
  std::unique_ptr<SchedulingCycle> cycle_;
  std::unique_ptr<PodGrouper> grouper_;
  std::unique_ptr<kube::Controller> grouper_controller_;

  kube::SharedInformer pods_, nodes_, queues_, podgroups_;
  std::unique_ptr<WebhookServer> webhook_;
  std::unique_ptr<kube::HealthServer> health_;
  std::unique_ptr<kube::LeaderElector> elector_;

  std::mutex lead_mu_;
  std::atomic<bool> leading_{false};
  std::unique_ptr<kube::Cancellation> lead_cancel_;
  std::thread cycle_thread_, status_thread_, grouper_thread_;
  bool started_ = false, stopped_ = false;
};

}  // namespace vtenant::scheduler

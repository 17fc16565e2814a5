// SchedulingCycle: one pass from the cluster view to the API server.
//
//   1. nominated pods whose victims are gone are bound;
//   2. the snapshot is assembled (cluster_view.h), with each queue's
//      historical usage where time-based fairshare is on
//      (usage_history.h), and RunCycle decides;
//   3. victims are evicted (Eviction API); a job that needed victims is
//      nominated, not bound, until they are gone; a refused eviction (a
//      PodDisruptionBudget) drops the nomination and keeps that victim out
//      of the next cycles' plans for a while, so they pick another victim
//      or wait;
//   4. the other binds go to the binder; the groups bound or nominated
//      count their minimum runtime from now (KAI's LastStartTimestamp);
//   5. pending pods get their reason (rate-limited Events), queues and
//      PodGroups their status (batched), emptied GPUs lose their
//      reservation pods, the metrics move, and what the queues hold now
//      goes into their usage history.
// Run() repeats it every period, sooner when Wake() says pods arrived.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "kube/cancellation.h"
#include "kube/metrics.h"
#include "scheduler-core/options.h"
#include "scheduler/binder.h"
#include "scheduler/cluster_view.h"
#include "scheduler/evictor.h"
#include "scheduler/pending_events.h"
#include "scheduler/reservation.h"
#include "scheduler/status_writer.h"
#include "scheduler/usage_history.h"
#include "scheduler/usage_store.h"

namespace vtenant::scheduler {

struct CycleOptions {
  sched::Options core;
  std::chrono::milliseconds period{1000};
  // After a Wake, wait this long for more arrivals so a burst of pods makes
  // one cycle, not one each.
  std::chrono::milliseconds batch_delay{20};
  // A victim whose eviction was refused (PodDisruptionBudget) is not offered
  // again for this long; meanwhile other victims are tried, or the job waits.
  int64_t refused_eviction_hold_s = 60;
  // KAI's time-based fairshare: the queues' usage is kept over this window
  // and moves their over-quota shares (core.usage_k_milli says how much);
  // unset: off.
  std::optional<UsageHistory::Params> usage_history;
  // Where that history is kept across restarts (read at the first cycle,
  // written every usage_history->resolution_s and at the end of Run); null:
  // in memory only. Not owned.
  UsageStore* usage_store = nullptr;
  kube::Registry* registry = &kube::DefaultRegistry();
};

struct CycleStats {
  size_t binds = 0;
  size_t nominated = 0;
  size_t evictions = 0;
  size_t pending = 0;
};

class SchedulingCycle {
 public:
  // `pending` reports waiting pods, `not_ready` PodGroups not ready for
  // scheduling (World::not_ready).
  SchedulingCycle(ClusterView& view, Binder& binder, Evictor& evictor, Reservations& reservations,
                  StatusWriter& status, PendingEvents& pending, PendingEvents& not_ready,
                  CycleOptions options);

  // One cycle at wall time `now` (seconds).
  Result<CycleStats> RunOnce(int64_t now);

  // Cycles until `cancel` fires.
  void Run(kube::Cancellation& cancel);

  // Asks for a cycle soon (pods arrived or left).
  void Wake();

 private:
  ClusterView& view_;
  Binder& binder_;
  Evictor& evictor_;
  Reservations& reservations_;
  StatusWriter& status_;
  PendingEvents& pending_;
  PendingEvents& not_ready_;
  const CycleOptions options_;
  kube::Family<kube::Histogram>* duration_ = nullptr;
  kube::Family<kube::Histogram>* action_duration_ = nullptr;
  kube::Family<kube::Gauge>* pending_per_queue_ = nullptr;
  kube::Family<kube::Gauge>* gpu_allocated_ = nullptr;
  kube::Family<kube::Gauge>* gpu_fair_share_ = nullptr;
  kube::Family<kube::Gauge>* gpu_usage_ = nullptr;
  std::optional<UsageHistory> usage_;  // with options_.usage_history
  bool usage_restored_ = false;        // from options_.usage_store
  int64_t usage_saved_at_ = 0;         // when it was last saved there

  // Restores the usage history from the store once; until that succeeds,
  // tries again each cycle.
  void RestoreUsage(int64_t now);
  // Saves the usage history to the store when `force`, or when a
  // resolution step has passed since the last save.
  void SaveUsage(int64_t now, bool force);
  // Queues whose gauges the last cycle set: a queue gone since loses them.
  std::set<std::string> gauged_queues_;

  std::mutex mu_;  // guards woken_
  std::condition_variable cv_;
  bool woken_ = false;
};

}  // namespace vtenant::scheduler

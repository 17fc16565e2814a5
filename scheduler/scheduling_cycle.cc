#include "scheduler/scheduling_cycle.h"

#include <glog/logging.h>

#include <algorithm>
#include <map>
#include <set>

#include "scheduler-core/scheduler.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

using Steady = std::chrono::steady_clock;

double Since(Steady::time_point t) {
  return std::chrono::duration<double>(Steady::now() - t).count();
}

std::string CauseReason(sched::EvictionCause c) {
  switch (c) {
    case sched::EvictionCause::kReclaim:
      return "Reclaim";
    case sched::EvictionCause::kPreempt:
      return "Preempt";
    case sched::EvictionCause::kConsolidate:
      return "Consolidate";
    case sched::EvictionCause::kStaleGang:
      return "StaleGang";
    default:
      return "Evict";
  }
}

// `options` with the core reporting per job, for the PodGroups' status.
CycleOptions WithGroupReports(CycleOptions options) {
  options.core.report_groups = true;
  return options;
}

// KAI's words for a PodGroup that is not ready for scheduling.
std::string NotReadyMessage(const World::NotReadyGroup& g) {
  return "Job is not ready for scheduling. Waiting for " + std::to_string(g.min_member) +
         " pods, currently " + std::to_string(g.alive) + " exist, " + std::to_string(g.gated) +
         " are gated";
}

// A pending reason's kind as KAI names it on a PodGroup.
const char* KaiReasonOf(sched::PendingKind kind) {
  switch (kind) {
    case sched::PendingKind::kOverLimit:
      return kOverLimitReason;
    case sched::PendingKind::kNonPreemptibleOverQuota:
      return kNonPreemptibleOverQuotaReason;
    default:
      return kPodSchedulingErrorsReason;
  }
}

Placement ToPlacement(const sched::Snapshot& s, sched::PodId pod, const sched::Allocation& a) {
  Placement p;
  p.node = s.nodes[a.node].name;
  p.devices = sched::DeviceIndices(a);
  p.portion = a.portion;
  p.shared = s.pods[pod].request.IsShared();
  return p;
}

}  // namespace

SchedulingCycle::SchedulingCycle(ClusterView& view, Binder& binder, Evictor& evictor,
                                 Reservations& reservations, StatusWriter& status,
                                 PendingEvents& pending, PendingEvents& not_ready,
                                 CycleOptions options)
    : view_(view),
      binder_(binder),
      evictor_(evictor),
      reservations_(reservations),
      status_(status),
      pending_(pending),
      not_ready_(not_ready),
      options_(WithGroupReports(std::move(options))) {
  kube::Registry& r = *options_.registry;
  duration_ = r.AddHistogram("vtenant_scheduler_cycle_duration_seconds",
                             "Scheduling cycle time by phase (snapshot, decide, apply).", {"phase"},
                             kube::DefaultBuckets())
                  .value();
  action_duration_ =
      r.AddHistogram("vtenant_scheduler_action_duration_seconds",
                     "Time each scheduler-core action (allocate, consolidate, reclaim, preempt, "
                     "stale_gang) took within a cycle's decide phase.",
                     {"action"}, kube::DefaultBuckets())
          .value();
  pending_per_queue_ =
      r.AddGauge("vtenant_scheduler_pending_pods", "Pods waiting, by queue.", {"queue"}).value();
  gpu_allocated_ =
      r.AddGauge("vtenant_scheduler_queue_gpu_allocated", "GPUs allocated by queue.", {"queue"})
          .value();
  gpu_fair_share_ =
      r.AddGauge("vtenant_scheduler_queue_gpu_fair_share", "GPU fair share by queue.", {"queue"})
          .value();
  gpu_usage_ = r.AddGauge("vtenant_scheduler_queue_gpu_usage",
                          "Share of the cluster's GPUs a queue held over the usage window "
                          "(time-based fairshare), by queue.",
                          {"queue"})
                   .value();
  if (options_.usage_history) usage_.emplace(*options_.usage_history);
}

Result<CycleStats> SchedulingCycle::RunOnce(int64_t now) {
  CycleStats stats;
  // 1. Nominations whose victims are gone.
  std::vector<std::string> started;  // pods bound or nominated this cycle
  for (auto& [key, placement] : view_.NominationsReady(now)) {
    binder_.Bind(key, placement);
    started.push_back(key);
    ++stats.binds;
  }

  Steady::time_point t = Steady::now();
  if (usage_) {
    RestoreUsage(now);
    view_.SetQueueUsage(usage_->Usage(now));
  }
  VT_ASSIGN_OR_RETURN(World w, view_.Build(now));
  duration_->WithLabelValues({"snapshot"}).Observe(Since(t));
  const sched::Snapshot& s = *w.snapshot;

  t = Steady::now();
  std::vector<sched::ActionTime> action_times;
  sched::Decisions d = sched::RunCycle(s, options_.core, &action_times);
  duration_->WithLabelValues({"decide"}).Observe(Since(t));
  for (const sched::ActionTime& a : action_times)
    action_duration_->WithLabelValues({a.action}).Observe(a.seconds);

  t = Steady::now();
  // 3. Evictions, and the jobs they make room for.
  std::map<sched::GroupId, std::vector<std::string>> waiting_for_victims;  // job -> victims
  std::set<sched::GroupId> refused;
  auto evict = [&](sched::PodId pod, const std::string& reason, const std::string& message,
                   sched::GroupId for_job) {
    if (!w.movable[pod]) return;  // holders are never victims; defensive
    Status e = evictor_.Evict(s.pods[pod].name, reason, message);
    ++stats.evictions;
    if (for_job != sched::kNone) waiting_for_victims[for_job].push_back(s.pods[pod].name);
    if (e.ok()) {
      // Its group's preemption delay counts from now.
      if (auto g = w.pod_group.find(s.pods[pod].name); g != w.pod_group.end())
        view_.GroupEvicted(g->second, now);
    } else {
      LOG(WARNING) << "evicting " << s.pods[pod].name << ": " << e.ToString();
      if (for_job != sched::kNone) refused.insert(for_job);
      if (e.code() == StatusCode::kTooManyRequests)
        view_.EvictionRefused(s.pods[pod].name, now + options_.refused_eviction_hold_s);
    }
  };
  for (const sched::Eviction& e : d.evictions)
    evict(e.pod, CauseReason(e.cause), std::string(d.MessageOf(e)), e.for_job);
  for (const sched::Move& m : d.moves)
    evict(m.pod, "Consolidate", "moved to node " + s.nodes[m.to.node].name + " to make room",
          sched::kNone);

  // 4. Binds; a job whose victims are still leaving is nominated instead.
  for (const sched::Bind& b : d.binds) {
    const sched::Pod& pod = s.pods[b.pod];
    if (!w.movable[b.pod]) continue;
    Placement p = ToPlacement(s, b.pod, b.allocation);
    if (refused.contains(pod.group)) {
      view_.DropNomination(pod.name);
      continue;
    }
    started.push_back(pod.name);
    if (waiting_for_victims.contains(pod.group)) {
      view_.Nominate(pod.name, std::move(p), waiting_for_victims[pod.group], now);
      ++stats.nominated;
      continue;
    }
    binder_.Bind(pod.name, std::move(p));
    ++stats.binds;
  }
  // Their groups' minimum runtime counts from now, as KAI's LastStartTimestamp.
  for (const std::string& key : started)
    if (auto g = w.pod_group.find(key); g != w.pod_group.end()) view_.GroupStarted(g->second, now);
  // Moved pods are recreated by their owners and placed again then.

  // 5. Pending reasons, status, reservations, metrics.
  std::set<std::string> pending_keys;
  std::map<std::string, int64_t> pending_by_queue;
  const auto steady_now = Steady::now();
  for (const sched::Pending& p : d.pending) {
    const sched::Pod& pod = s.pods[p.pod];
    if (!w.movable[p.pod]) continue;
    pending_keys.insert(pod.name);
    pending_.Report(pod.name, d.ReasonOf(p), steady_now);
    ++pending_by_queue[s.queues[s.groups[pod.group].queue].name];
  }
  for (const Unschedulable& u : w.unschedulable) {
    pending_keys.insert(u.key);
    pending_.Report(u.key, u.reason, steady_now);
  }
  pending_.Retain(pending_keys);
  std::set<std::string> not_ready_keys;
  for (const auto& [key, g] : w.not_ready) {
    not_ready_keys.insert(key);
    not_ready_.Report(key, NotReadyMessage(g), steady_now);
  }
  not_ready_.Retain(not_ready_keys);
  stats.pending = pending_keys.size();

  std::set<std::string> gauged;
  std::map<std::string, sched::ResourceVector> held;  // for the usage history
  for (const sched::QueueReport& q : d.queues) {
    const std::string& name = s.queues[q.queue].name;
    if (name == kHolderQueue) continue;
    gauged.insert(name);
    if (usage_) held.emplace(name, q.allocated);
    std::vector<std::string> children;
    for (sched::QueueId c : s.queues[q.queue].children)
      if (s.queues[c].name != kHolderQueue) children.push_back(s.queues[c].name);
    std::sort(children.begin(), children.end());
    status_.SetQueue(name, {q.allocated, q.allocated_non_preemptible, q.requested,
                            q.fair_share[sched::kGpu], std::move(children)});
    pending_per_queue_->WithLabelValues({name}).Set(static_cast<double>(pending_by_queue[name]));
    gpu_allocated_->WithLabelValues({name}).Set(q.allocated[sched::kGpu] / 1000.0);
    gpu_fair_share_->WithLabelValues({name}).Set(q.fair_share[sched::kGpu] / 1000.0);
    if (usage_)
      gpu_usage_->WithLabelValues({name}).Set(s.queues[q.queue].usage_ppm[sched::kGpu] / 1e6);
  }
  if (usage_) {
    usage_->Record(now, held, d.capacity);
    SaveUsage(now, /*force=*/false);
  }
  // A deleted queue's series go, rather than show its last values forever.
  for (const std::string& name : gauged_queues_) {
    if (gauged.contains(name)) continue;
    pending_per_queue_->Remove({name});
    gpu_allocated_->Remove({name});
    gpu_fair_share_->Remove({name});
    gpu_usage_->Remove({name});
  }
  gauged_queues_ = std::move(gauged);
  // PodGroups: Running once minMember pods run or are being bound.
  std::map<sched::GroupId, const sched::Pending*> group_reason;
  for (const sched::Pending& p : d.pending) group_reason.emplace(s.pods[p.pod].group, &p);
  std::set<sched::PodId> bound_now;
  for (const sched::Bind& b : d.binds) bound_now.insert(b.pod);
  for (sched::GroupId g = 0; g < s.groups.size(); ++g) {
    const sched::PodGroup& group = s.groups[g];
    if (!w.podgroups.contains(group.name)) continue;  // a bare pod's implicit group
    PodGroupStatus st;
    for (sched::PodId p : group.pods) {
      if (s.pods[p].phase == sched::PodPhase::kRunning || bound_now.contains(p))
        ++st.running;
      else
        ++st.pending;
    }
    if (g < d.groups.size()) {
      st.allocated = d.groups[g].allocated;
      if (!group.preemptible) st.allocated_non_preemptible = st.allocated;
      st.requested = d.groups[g].requested;
    }
    st.stale_since = group.stale_since;
    st.last_eviction = group.last_eviction_time;
    st.last_start = group.last_start_time;
    st.phase = st.running >= group.min_member ? "Running" : "Pending";
    if (auto it = group_reason.find(g); st.phase == "Pending" && it != group_reason.end()) {
      st.reason = d.ReasonOf(*it->second);
      st.kind = KaiReasonOf(d.KindOf(*it->second));
    }
    status_.SetPodGroup(group.name, st);
  }
  // PodGroups that cannot be scheduled as written say why where their
  // owners look.
  for (const auto& [key, bad] : w.invalid_podgroups)
    status_.SetPodGroup(key, {.phase = "Pending",
                              .reason = bad.reason,
                              .running = bad.running,
                              .pending = bad.pending,
                              .kind = bad.kind});
  // Reservation pods of GPUs nobody shares any more.
  std::set<std::pair<std::string, int>> in_use = view_.SharedDevicesInUse();
  for (const Reservation& r : view_.Reservations()) {
    if (r.terminating || in_use.contains({r.node, r.index})) continue;
    Status rel = reservations_.Release(r.name);
    if (!rel.ok()) LOG(WARNING) << "releasing reservation " << r.name << ": " << rel.ToString();
  }
  duration_->WithLabelValues({"apply"}).Observe(Since(t));
  return stats;
}

void SchedulingCycle::RestoreUsage(int64_t now) {
  if (usage_restored_ || options_.usage_store == nullptr) return;
  Result<std::string> saved = options_.usage_store->Load();
  if (!saved.ok()) {
    LOG_EVERY_N(WARNING, 60) << "reading the queues' usage history: " << saved.status().ToString();
    return;
  }
  usage_restored_ = true;
  usage_saved_at_ = now;
  if (saved->empty()) return;
  if (Status s = usage_->Restore(*saved); !s.ok())
    LOG(WARNING) << "the saved queues' usage history is left out: " << s.ToString();
}

void SchedulingCycle::SaveUsage(int64_t now, bool force) {
  // A ConfigMap holds 1 MiB; what is larger is saved coarser.
  constexpr size_t kMaxSavedBytes = 512 * 1024;
  if (!usage_ || !usage_restored_ || options_.usage_store == nullptr) return;
  if (!force && now - usage_saved_at_ < options_.usage_history->resolution_s) return;
  if (Status s = options_.usage_store->Save(usage_->Save(kMaxSavedBytes)); !s.ok()) {
    LOG(WARNING) << "saving the queues' usage history: " << s.ToString();
    return;
  }
  usage_saved_at_ = now;
}

void SchedulingCycle::Run(kube::Cancellation& cancel) {
  kube::CancellationRegistration wake(&cancel, [this] { Wake(); });
  auto wall_now = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  while (!cancel.cancelled()) {
    const int64_t now = wall_now();
    Result<CycleStats> r = RunOnce(now);
    if (!r.ok()) LOG(ERROR) << "scheduling cycle: " << r.status().ToString();
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, options_.period, [&] { return woken_; });
    if (woken_ && !cancel.cancelled()) {
      // Let the rest of a burst arrive.
      lock.unlock();
      std::this_thread::sleep_for(options_.batch_delay);
      lock.lock();
    }
    woken_ = false;
  }
  SaveUsage(wall_now(), /*force=*/true);
}

void SchedulingCycle::Wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

}  // namespace vtenant::scheduler

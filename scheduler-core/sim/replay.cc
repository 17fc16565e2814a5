#include "scheduler-core/sim/replay.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>

#include "scheduler-core/sim/json_fields.h"
#include "scheduler-core/snapshot_builder.h"
#include "scheduler-core/universe.h"
#include "scheduler-core/workload_model.h"

namespace vtenant::sched::sim {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct PodState {
  bool arrived = false;
  bool deleted = false;
  bool running = false;
  bool ever_bound = false;
  Allocation allocation;
  int64_t start_time = 0;
};

// Adds every node, queue, gang and pod of the trace to `b`, all pending.
void AddTrace(const Trace& trace, SnapshotBuilder& b) {
  for (const NodeSpec& n : trace.nodes) b.AddNode(n);
  bool has_default = false;
  for (const QueueSpec& q : trace.queues) {
    b.AddQueue(q);
    has_default = has_default || q.name == kDefaultQueue;
  }
  if (!has_default) {
    // Pods that name no queue go to "default", which may use everything.
    QueueSpec q;
    q.name = kDefaultQueue;
    for (QueueResource& r : q.resources) r = {kUnlimited, kUnlimited, 1000};
    b.AddQueue(q);
  }
  std::map<std::string, size_t> gangs;
  for (const PodRecord& r : trace.pods) {
    PodSpec p = r.spec;
    if (!r.gang.empty()) {
      auto [it, fresh] = gangs.emplace(r.gang, 0);
      if (fresh) {
        // The gang takes its first pod's queue, priority and times.
        GroupSpec g = OwnGroupSpec(p);
        g.name = r.gang;
        g.min_member = r.min_member;
        b.AddGroup(g);
      }
      p.group = r.gang;
    }
    b.AddPod(std::move(p));
  }
}

}  // namespace

Result<Snapshot> BuildUniverse(const Trace& trace) {
  SnapshotBuilder b;
  AddTrace(trace, b);
  return b.Build();
}

Result<ReplaySummary> Replay(const Trace& trace, const ReplayOptions& options) {
  const Clock::time_point wall_start = Clock::now();
  // The universe of the trace (scheduler-core/universe.h): built once, each
  // cycle copies the pods present into a working snapshot.
  SnapshotBuilder builder;
  AddTrace(trace, builder);
  VT_ASSIGN_OR_RETURN(Universe cycle_universe, Universe::Create(builder));
  const Snapshot& universe = cycle_universe.universe();
  const size_t num_pods = universe.pods.size();

  std::ofstream series;
  if (!options.series_path.empty()) {
    series.open(options.series_path);
    if (!series) return Unavailable(options.series_path + ": cannot write");
    series << "time,arrived_gpu_milli,active_demand_gpu_milli,allocated_gpu_milli,"
              "fragmented_gpu_milli,pending_pods\n";
  }

  // Events: arrivals at creation time, deletions at deletion time.
  struct Event {
    int64_t time;
    bool deletion;
    PodId pod;
  };
  std::vector<Event> events;
  for (PodId p = 0; p < num_pods; ++p) {
    events.push_back({universe.pods[p].creation_time, false, p});
    if (options.deletions && trace.pods[p].deletion_time >= 0)
      events.push_back({trace.pods[p].deletion_time, true, p});
  }
  // At one time, deletions first: their capacity is there for the arrivals.
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.deletion != b.deletion) return a.deletion;
    return a.pod < b.pod;
  });

  const int32_t largest_mib = LargestDeviceMib(universe.devices);
  std::vector<Milli> demand(num_pods);
  for (PodId p = 0; p < num_pods; ++p)
    demand[p] = EstimatedGpuMilli(universe.pods[p].request, largest_mib);

  ReplaySummary sum;
  sum.policy = std::string(PolicyName(options.scheduler.policy));
  sum.nodes = static_cast<int64_t>(universe.nodes.size());
  sum.pods_total = static_cast<int64_t>(num_pods);
  for (const Node& n : universe.nodes) sum.gpu_milli_capacity += n.num_devices * kMilliPerGpu;

  std::vector<PodState> state(num_pods);
  Milli arrived_gpu = 0;
  Milli active_demand = 0;
  Decisions last;
  std::vector<PresentPod> present;

  // Device use, kept as pods come and go, for allocation and fragmentation.
  std::vector<Milli> device_used(universe.devices.size(), 0);
  std::vector<int32_t> device_whole(universe.devices.size(), 0);
  auto account = [&](PodId p, int sign) {
    const Allocation& a = state[p].allocation;
    for (int i : DeviceIndices(a)) {
      DeviceId d = universe.nodes[a.node].first_device + i;
      device_used[d] += sign * a.portion;
      if (universe.pods[p].request.whole_gpus > 0) device_whole[d] += sign;
    }
  };
  auto measure = [&](Milli* allocated, Milli* fragmented) {
    *allocated = 0;
    *fragmented = 0;
    for (DeviceId d = 0; d < device_used.size(); ++d) {
      *allocated += device_used[d];
      if (device_used[d] > 0 && device_whole[d] == 0) *fragmented += kMilliPerGpu - device_used[d];
    }
  };
  int64_t pending_now = 0;

  double weighted_ratio = 0;
  int64_t first_time = events.empty() ? 0 : events.front().time;
  int64_t prev_time = first_time;
  Milli prev_allocated = 0;

  // fgd learns the workload from the pods it has seen arrive.
  Options scheduler = options.scheduler;
  std::shared_ptr<WorkloadModel> model;
  if (scheduler.policy == PlacementPolicy::kFgd && !scheduler.workload) {
    model = std::make_shared<WorkloadModel>();
    scheduler.workload = model;
  }

  const int64_t window = std::max<int64_t>(1, options.cycle_seconds);
  for (size_t i = 0; i < events.size();) {
    // The batch: events up to the end of the window the first one opens;
    // the cycle runs at the window's last second.
    const int64_t window_end = events[i].time + window - 1;
    int64_t now = events[i].time;
    for (size_t j = i; j < events.size() && events[j].time <= window_end; ++j) now = events[j].time;
    if (sum.gpu_milli_capacity > 0)
      weighted_ratio += double(prev_allocated) / sum.gpu_milli_capacity * double(now - prev_time);
    prev_time = now;
    for (; i < events.size() && events[i].time <= now; ++i) {
      PodState& ps = state[events[i].pod];
      if (events[i].deletion) {
        if (!ps.deleted && ps.arrived) {
          active_demand -= demand[events[i].pod];
          if (ps.running)
            account(events[i].pod, -1);
          else
            --pending_now;
        }
        ps.deleted = true;
        ps.running = false;
      } else {
        ps.arrived = true;
        if (model) model->Observe(universe, events[i].pod);
        ++pending_now;
        arrived_gpu += demand[events[i].pod];
        active_demand += demand[events[i].pod];
      }
    }
    // The working snapshot: pods present now, running or pending.
    const bool any_pending = pending_now > 0;
    if (any_pending) {
      present.clear();
      for (PodId p = 0; p < num_pods; ++p) {
        const PodState& ps = state[p];
        if (!ps.arrived || ps.deleted) continue;
        present.push_back({p, ps.running, ps.allocation, ps.start_time});
      }
      const Snapshot& work = cycle_universe.Working(now, present);
      const Clock::time_point cycle_start = Clock::now();
      last = RunCycle(work, scheduler);
      const double cycle_seconds = Seconds(Clock::now() - cycle_start);
      sum.scheduling_seconds += cycle_seconds;
      sum.max_cycle_ms = std::max(sum.max_cycle_ms, cycle_seconds * 1000);
      ++sum.cycles;
      // An evicted pod is recreated by its owner and waits again.
      for (const Eviction& e : last.evictions) {
        PodId p = cycle_universe.UniversePod(e.pod);
        account(p, -1);
        state[p].running = false;
        ++pending_now;
      }
      for (const Move& m : last.moves) {
        PodId p = cycle_universe.UniversePod(m.pod);
        account(p, -1);
        state[p].allocation = m.to;
        state[p].start_time = now;
        account(p, +1);
      }
      for (const Bind& b : last.binds) {
        PodId p = cycle_universe.UniversePod(b.pod);
        PodState& ps = state[p];
        ps.running = true;
        ps.ever_bound = true;
        ps.allocation = b.allocation;
        ps.start_time = now;
        account(p, +1);
        --pending_now;
      }
      sum.binds += static_cast<int64_t>(last.binds.size());
      sum.evictions += static_cast<int64_t>(last.evictions.size());
      sum.moves += static_cast<int64_t>(last.moves.size());
    }
    Milli allocated = 0, fragmented = 0;
    measure(&allocated, &fragmented);
    prev_allocated = allocated;
    if (series)
      series << now << ',' << arrived_gpu << ',' << active_demand << ',' << allocated << ','
             << fragmented << ',' << pending_now << '\n';
  }

  measure(&sum.gpu_milli_allocated, &sum.fragmented_gpu_milli);
  for (const PodState& ps : state) {
    sum.pods_scheduled += ps.ever_bound;
    sum.pods_running += ps.running;
    sum.pods_pending += ps.arrived && !ps.deleted && !ps.running;
  }
  if (sum.gpu_milli_capacity > 0)
    sum.gpu_allocation_ratio = double(sum.gpu_milli_allocated) / sum.gpu_milli_capacity;
  if (prev_time > first_time)
    sum.mean_gpu_allocation_ratio = weighted_ratio / double(prev_time - first_time);
  else
    sum.mean_gpu_allocation_ratio = sum.gpu_allocation_ratio;
  for (QueueId q = 0; q < universe.queues.size(); ++q) {
    QueueSummary qs{universe.queues[q].name, {}, {}, {}};
    if (q < last.queues.size()) {
      qs.fair_share = last.queues[q].fair_share;
      qs.allocated = last.queues[q].allocated;
      qs.requested = last.queues[q].requested;
    }
    sum.queues.push_back(qs);
  }
  sum.wall_seconds = Seconds(Clock::now() - wall_start);
  const double decisions = double(sum.binds + sum.evictions + sum.moves);
  sum.decisions_per_second = sum.wall_seconds > 0 ? decisions / sum.wall_seconds : 0;
  return sum;
}

// In the form InOrderJson (in_order.cc) also writes, field by field: the two
// summaries share their form, not their fields.
std::string SummaryJson(const ReplaySummary& s) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("policy");
  w.String(s.policy.c_str());
  IntField(w, "nodes", s.nodes);
  IntField(w, "pods_total", s.pods_total);
  IntField(w, "pods_scheduled", s.pods_scheduled);
  IntField(w, "pods_pending", s.pods_pending);
  IntField(w, "pods_running", s.pods_running);
  IntField(w, "gpu_milli_capacity", s.gpu_milli_capacity);
  IntField(w, "gpu_milli_allocated", s.gpu_milli_allocated);
  RealField(w, "gpu_allocation_ratio", s.gpu_allocation_ratio);
  IntField(w, "fragmented_gpu_milli", s.fragmented_gpu_milli);
  RealField(w, "mean_gpu_allocation_ratio", s.mean_gpu_allocation_ratio);
  w.Key("queues");
  w.StartObject();
  for (const QueueSummary& q : s.queues) {
    w.Key(q.name.c_str());
    w.StartObject();
    for (auto [key, v] :
         {std::pair<const char*, const ResourceVector*>{"fair_share", &q.fair_share},
          {"allocated", &q.allocated},
          {"requested", &q.requested}}) {
      w.Key(key);
      w.StartObject();
      w.Key("gpu_milli");
      w.Int64((*v)[kGpu]);
      w.Key("cpu_milli");
      w.Int64((*v)[kCpu]);
      w.Key("memory_bytes");
      w.Int64((*v)[kMemory]);
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndObject();
  IntField(w, "cycles", s.cycles);
  IntField(w, "binds", s.binds);
  IntField(w, "evictions", s.evictions);
  IntField(w, "moves", s.moves);
  RealField(w, "wall_seconds", s.wall_seconds);
  RealField(w, "scheduling_seconds", s.scheduling_seconds);
  RealField(w, "decisions_per_second", s.decisions_per_second);
  RealField(w, "max_cycle_ms", s.max_cycle_ms);
  w.EndObject();
  return buffer.GetString();
}

}  // namespace vtenant::sched::sim

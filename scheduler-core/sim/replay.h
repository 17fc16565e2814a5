// Replays a trace through the scheduler: pods arrive (and, unless told
// otherwise, leave) at their times; after each batch of events at one time a
// scheduling cycle runs and its decisions are applied.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "scheduler-core/options.h"
#include "scheduler-core/scheduler.h"
#include "scheduler-core/sim/trace.h"

namespace vtenant::sched::sim {

struct ReplayOptions {
  Options scheduler;
  bool deletions = true;
  // Events within one window of this many seconds form one batch, followed
  // by one cycle (KAI runs a cycle every second by default).
  int64_t cycle_seconds = 1;
  std::string series_path;  // empty: no series
};

struct QueueSummary {
  std::string name;
  ResourceVector fair_share;
  ResourceVector allocated;
  ResourceVector requested;
};

struct ReplaySummary {
  std::string policy;
  int64_t nodes = 0;
  int64_t pods_total = 0;
  int64_t pods_scheduled = 0;  // distinct pods bound at least once
  int64_t pods_pending = 0;    // arrived, not deleted, not running at the end
  int64_t pods_running = 0;
  Milli gpu_milli_capacity = 0;
  Milli gpu_milli_allocated = 0;  // at the end
  double gpu_allocation_ratio = 0;
  // Free milli-GPU on devices some pod already shares: capacity only a
  // small enough fraction can still use.
  Milli fragmented_gpu_milli = 0;
  double mean_gpu_allocation_ratio = 0;  // time-weighted over the replay
  std::vector<QueueSummary> queues;
  int64_t cycles = 0;
  int64_t binds = 0;
  int64_t evictions = 0;
  int64_t moves = 0;
  double wall_seconds = 0;
  double scheduling_seconds = 0;  // inside RunCycle
  double decisions_per_second = 0;
  double max_cycle_ms = 0;
};

// Errors: the trace's first invalid object, as SnapshotBuilder::Build
// reports it; Unavailable when the series file cannot be written.
Result<ReplaySummary> Replay(const Trace& trace, const ReplayOptions& options);

// One validated snapshot with every pod of the trace pending (and a
// "default" queue when the trace has none): names interned and shapes
// derived once for the whole replay.
Result<Snapshot> BuildUniverse(const Trace& trace);

// The summary as one JSON object (keys as in ReplaySummary).
std::string SummaryJson(const ReplaySummary& summary);

}  // namespace vtenant::sched::sim

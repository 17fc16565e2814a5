// Placement only, the protocol of FGD's simulator: every pod of the trace
// tried once, in arrival order, against one cluster state that only fills
// (no deletions, no evictions, no retries). For pods of their own in queues
// without limits this decides exactly what Replay decides with
// --allocate-only --no-deletions and one arrival per cycle (a pod that
// found no room never finds it later when nothing leaves), in a fraction
// of the time, since no snapshot is rebuilt per pod.
#pragma once

#include "base/status.h"
#include "scheduler-core/sim/replay.h"

namespace vtenant::sched::sim {

struct InOrderOptions {
  Options scheduler;  // policy, seed, workload
  // Also report the state when the GPU demand that has arrived first
  // reaches this share of capacity (1.0: the "100 % arrival" point).
  double checkpoint_arrival = 1.0;
};

struct InOrderSummary {
  std::string policy;
  int64_t pods = 0;
  int64_t placed = 0;
  Milli gpu_milli_capacity = 0;
  Milli gpu_milli_arrived = 0;
  Milli gpu_milli_allocated = 0;
  // At the checkpoint (the first pod whose arrival reaches it).
  Milli checkpoint_gpu_milli_arrived = 0;
  Milli checkpoint_gpu_milli_allocated = 0;
  double wall_seconds = 0;
};

// Errors: the trace's first invalid object, as SnapshotBuilder::Build
// reports it; InvalidArgument for a trace with gangs (a gang is placed
// whole or not at all, never one pod at a time). Under fgd without a
// workload model, one is kept that learns each pod as it arrives.
Result<InOrderSummary> PlaceInOrder(const Trace& trace, const InOrderOptions& options);

std::string InOrderJson(const InOrderSummary& summary);

}  // namespace vtenant::sched::sim

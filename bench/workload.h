// Synthetic clusters and workloads for the benchmarks and for bench/gen.
//
// One generator serves both so that what the benchmarks measure and what
// vtenant-sim replays come from the same, seeded, description.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "scheduler-core/model.h"
#include "scheduler-core/sim/trace.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::bench {

using sched::GroupSpec;
using sched::NodeSpec;
using sched::PodSpec;
using sched::QueueSpec;

// Kinds of jobs, and how often each is drawn (weights, any scale).
struct JobMix {
  double fraction_25 = 20;  // gpu-fraction 0.25
  double fraction_33 = 15;  // gpu-fraction 0.33
  double fraction_50 = 15;  // gpu-fraction 0.5
  double gpu_memory = 10;   // gpu-memory 10 000 or 20 000 MiB
  double one_gpu = 25;      // nvidia.com/gpu: 1
  double eight_gpu = 9;     // nvidia.com/gpu: 8
  double gang_8x8 = 1;      // 8 pods of 8 GPUs, minMember 8
  double cpu_only = 5;

  // Mostly small fractions: where packing policies differ most.
  static JobMix Fractional();
};

struct WorkloadConfig {
  int nodes = 1000;
  int gpus_per_node = 8;
  std::string gpu_model = "H100";
  int32_t gpu_memory_mib = 81559;
  int leaf_queues = 50;  // under leaf_queues / 10 parents (two levels)
  int pods = 20000;      // pending pods, approximately (a gang adds 8)
  JobMix mix;
  // Share of the cluster's GPUs held by running pods before the cycle.
  double running_fill = 0;
  uint64_t seed = 1;
  // For traces: arrivals spread over `duration_s`, lifetimes exponential
  // around `mean_lifetime_s` (0: pods never leave).
  int64_t duration_s = 0;
  int64_t mean_lifetime_s = 0;
};

struct Workload {
  std::vector<NodeSpec> nodes;
  std::vector<QueueSpec> queues;
  std::vector<GroupSpec> groups;
  std::vector<PodSpec> pods;
  std::vector<int64_t> deletion_time;  // per pod, -1 never
};

Workload Generate(const WorkloadConfig& config);

Result<sched::Snapshot> BuildSnapshot(const Workload& workload);

// The trace form vtenant-sim reads (gangs by name, times per pod).
sched::sim::Trace ToTrace(const Workload& workload);

// Reclaim with large jobs: every GPU held by one-GPU preemptible jobs of a
// queue far above its fair share, and gangs of 8 x 8 GPUs waiting in a
// queue with half the cluster as quota.
Workload ReclaimScenario(int nodes, uint64_t seed = 1);

// Only the queue tree (for fair-share benchmarks), with a request per leaf.
struct QueueTree {
  std::vector<sched::Queue> queues;
  std::vector<sched::ResourceVector> requested;  // rolled up
  sched::ResourceVector capacity;
};
QueueTree MakeQueueTree(int leaf_queues, uint64_t seed = 1);

}  // namespace vtenant::bench

// A workload to replay: the cluster's nodes, the KAI queues and the pods
// with their arrival and deletion times, read from (and written to) the
// simulator's files.
//
// Nodes CSV:  sn,cpu_milli,memory_mib,gpu,model[,gpu_memory_mib][,labels]
//             labels as "key=value;key=value"
// Pods CSV:   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
//             creation_time,deletion_time,scheduled_time
//             [,queue][,gang][,min_member][,priority][,gpu_memory_mib]
//   num_gpu devices, each gpu_milli of a device (1000 or 0: whole devices;
//   below 1000: a fraction, on num_gpu devices); gpu_spec "A|B" restricts
//   the GPU model; times in seconds, deletion_time empty or -1 for never.
// Queues YAML: KAI Queue objects (scheduling.run.ai/v2), "---" separated.
// Both CSVs find their columns by the header's names, in any order; the
// bracketed ones may be left out.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::sched::sim {

// The label every node carries with its GPU model, matched by gpu_spec: the
// same name as kai::kGpuProductLabel, spelled here because scheduler-core
// includes nothing outside base/.
inline constexpr char kGpuModelLabel[] = "nvidia.com/gpu.product";
inline constexpr char kDefaultQueue[] = "default";

struct PodRecord {
  PodSpec spec;      // no node: every pod arrives pending
  std::string gang;  // empty: a job of its own
  int32_t min_member = 1;
  std::string qos;
  std::string phase;
  int64_t deletion_time = -1;
  int64_t scheduled_time = -1;
  int line = 0;  // in the pods file, for messages
};

struct Trace {
  std::vector<NodeSpec> nodes;
  std::vector<QueueSpec> queues;
  std::vector<PodRecord> pods;
};

Result<std::vector<NodeSpec>> LoadNodesCsv(const std::string& path);
Result<std::vector<PodRecord>> LoadPodsCsv(const std::string& path);
Result<std::vector<QueueSpec>> LoadQueuesYaml(const std::string& path);

// Same, from text (`name` stands in for the path in messages).
Result<std::vector<NodeSpec>> ParseNodesCsv(const std::string& name, std::string text);
Result<std::vector<PodRecord>> ParsePodsCsv(const std::string& name, std::string text);
Result<std::vector<QueueSpec>> ParseQueuesYaml(const std::string& name, const std::string& text);

// Cross-file checks, reported against the pods file's lines: every pod's
// queue exists and is a leaf (pods without one go to "default", which is
// created when the queues file has none), and the pods of a gang agree on
// queue and min_member.
Status CheckTrace(const Trace& trace, const std::string& pods_name);

// Memory of a GPU model when the nodes file does not say (MiB as the
// nvidia.com/gpu.memory label reports it); 0 when unknown.
int32_t KnownGpuMemoryMib(std::string_view model);

Status WriteNodesCsv(const std::string& path, const std::vector<NodeSpec>& nodes);
Status WritePodsCsv(const std::string& path, const std::vector<PodRecord>& pods);
Status WriteQueuesYaml(const std::string& path, const std::vector<QueueSpec>& queues);

}  // namespace vtenant::sched::sim

// Helpers for scheduler-core tests: build small worlds by name and read
// decisions back by pod name. Test-only.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "scheduler-core/scheduler.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::sched::testing {

inline constexpr int64_t kGiB = int64_t{1} << 30;
// An L40S as its node label reports it (nvidia.com/gpu.memory).
inline constexpr int32_t kL40sMib = 46068;

inline NodeSpec GpuNode(std::string name, int32_t gpus, int32_t mib = kL40sMib,
                        LabelPairs labels = {}) {
  NodeSpec n;
  n.name = std::move(name);
  n.cpu_milli = 64000;
  n.memory_bytes = 512 * kGiB;
  n.gpus = gpus;
  n.gpu_memory_mib = mib;
  n.gpu_model = "NVIDIA-L40S";
  n.labels = std::move(labels);
  return n;
}

// Where most tests start: root queues with GPU quotas (no limit, weight 1)
// and L40S nodes with GPU counts, at time `now`.
inline SnapshotBuilder Cluster(std::vector<std::pair<std::string, Milli>> queues,
                               std::vector<std::pair<std::string, int32_t>> nodes,
                               int64_t now = 0) {
  SnapshotBuilder b;
  b.SetNow(now);
  for (auto& [name, quota] : queues) b.AddQueue(GpuQueue(std::move(name), "", quota));
  for (auto& [name, gpus] : nodes) b.AddNode(GpuNode(std::move(name), gpus));
  return b;
}

// One leaf queue "test" under "default", both unlimited, and no nodes.
inline SnapshotBuilder OneQueue() {
  SnapshotBuilder b;
  b.AddQueue(GpuQueue("default", "", kUnlimited));
  b.AddQueue(GpuQueue("test", "default", kUnlimited));
  return b;
}

inline Snapshot MustBuild(const SnapshotBuilder& b) {
  Result<Snapshot> s = b.Build();
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return Snapshot{};
  return std::move(s).value();
}

inline PodId PodNamed(const Snapshot& s, const std::string& name) {
  for (PodId p = 0; p < s.pods.size(); ++p)
    if (s.pods[p].name == name) return p;
  ADD_FAILURE() << "no pod " << name;
  return kNone;
}

inline QueueId QueueNamed(const Snapshot& s, const std::string& name) {
  for (QueueId q = 0; q < s.queues.size(); ++q)
    if (s.queues[q].name == name) return q;
  ADD_FAILURE() << "no queue " << name;
  return kNone;
}

inline const Bind* BindOf(const Decisions& d, const Snapshot& s, const std::string& pod) {
  PodId id = PodNamed(s, pod);
  for (const Bind& b : d.binds)
    if (b.pod == id) return &b;
  return nullptr;
}

inline const Eviction* EvictionOf(const Decisions& d, const Snapshot& s, const std::string& pod) {
  PodId id = PodNamed(s, pod);
  for (const Eviction& e : d.evictions)
    if (e.pod == id) return &e;
  return nullptr;
}

// Empty when the pod is not pending.
inline std::string ReasonOf(const Decisions& d, const Snapshot& s, const std::string& pod) {
  PodId id = PodNamed(s, pod);
  for (const Pending& p : d.pending)
    if (p.pod == id) return d.ReasonOf(p);
  return "";
}

inline const QueueReport& ReportOf(const Decisions& d, const Snapshot& s, const std::string& q) {
  return d.queues[QueueNamed(s, q)];
}

inline std::string NodeOf(const Decisions& d, const Snapshot& s, const std::string& pod) {
  const Bind* b = BindOf(d, s, pod);
  return b ? s.nodes[b->allocation.node].name : "";
}

// A pod of its own job in `queue`.
inline PodSpec FractionPod(std::string name, std::string queue, Milli fraction) {
  return {.name = std::move(name), .queue = std::move(queue), .gpu_fraction = fraction};
}

inline PodSpec WholeGpuPod(std::string name, std::string queue, int32_t gpus) {
  return {.name = std::move(name), .queue = std::move(queue), .whole_gpus = gpus};
}

inline PodSpec MemoryPod(std::string name, std::string queue, int32_t mib) {
  return {.name = std::move(name), .queue = std::move(queue), .gpu_memory_mib = mib};
}

// Marks a spec as already running on `node`, devices `devices`.
inline PodSpec Running(PodSpec p, std::string node, std::vector<int> devices,
                       int64_t start_time = 0) {
  p.node = std::move(node);
  p.devices = std::move(devices);
  p.start_time = start_time;
  return p;
}

}  // namespace vtenant::sched::testing

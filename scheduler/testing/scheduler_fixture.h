// Helpers for tests and benchmarks that run vtenant-scheduler against a real
// API server: our KAI CRDs, writing Queues and pods, and running
// the scheduler in-process with its webhook on loopback.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kube/client.h"
#include "scheduler/scheduler_app.h"

namespace vtenant::scheduler::testing {

// KAI's Queue, PodGroup and Topology CRDs as the chart ships them
// (localenv::CrdManifest): pass as LocalClusterOptions::manifests.
std::vector<std::string> KaiCrdManifests();

// A KAI Queue with a GPU quota, limit and weight in devices (-1 unlimited);
// CPU and memory unlimited.
kube::Object QueueManifest(const std::string& name, const std::string& parent, double gpu_quota,
                           double gpu_limit = -1, double weight = 1);

struct PodOptions {
  std::string queue;                               // label kai.scheduler/queue
  std::map<std::string, std::string> annotations;  // gpu-fraction, gpu-memory, ...
  int whole_gpus = 0;
  std::string priority_class;
  std::string scheduler_name = "kai-scheduler";
};
kube::Object PodManifest(const std::string& ns, const std::string& name, const PodOptions& options);

// Starts a SchedulerApp with its webhook on a free loopback port and
// health endpoints off (unless flags say otherwise). `identity` names the
// replica in the leader Lease ("" for the default).
Result<std::unique_ptr<SchedulerApp>> StartScheduler(kube::Client& client,
                                                     SchedulerFlags flags = {},
                                                     const std::string& identity = "");

// Count of pods in `ns` whose phase is `phase` (Running, Pending).
int CountPods(kube::Client& client, const std::string& ns, const std::string& phase);

// The node pod ns/name is bound to, once it is Running; "" when it does not
// run before Eventually's deadline.
std::string NodeOnceRunning(kube::Client& client, const std::string& ns, const std::string& name);

// The messages of Events about pod ns/name with `reason`.
std::vector<std::string> EventMessages(kube::Client& client, const std::string& ns,
                                       const std::string& name, const std::string& reason);

}  // namespace vtenant::scheduler::testing

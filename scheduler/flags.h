// The command line of vtenant-scheduler: every flag, its default and its
// help text in one table, so --help can never leave one out.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "kai/names.h"

namespace vtenant::scheduler {

struct SchedulerFlags {
  std::string kubeconfig;  // empty: $KUBECONFIG, in-cluster, ~/.kube/config
  std::string scheduler_name = kai::kSchedulerName;
  std::chrono::milliseconds cycle_period{1000};
  std::string reservation_namespace = "vtenant-reservation";
  std::string reservation_image = "ghcr.io/vtenant/gpu-reservation:latest";
  std::string reservation_service_account;  // empty: the namespace's default
  std::string webhook_address;              // host:port; empty: no webhook
  std::string webhook_url;  // what the API server calls; empty: https://<address>/mutate
  std::string webhook_cert, webhook_key;
  std::string gpu_fraction_runtime_class = "nvidia";  // as KAI's; empty: none
  bool block_nvidia_visible_devices = false;          // KAI's; admission.h
  bool hami_core = false;                             // KAI's hamicore plugins; admission.h
  bool enable_quota_validation = false;               // KAI's; kai/queue_admission.h
  std::string health_address = "127.0.0.1:8081";      // empty: none
  bool leader_elect = false;
  std::string leader_elect_namespace = "default";
  std::string policy = "fgd";
  int bind_workers = 16;
  std::chrono::milliseconds status_period{2000};
  // How long a gang may run below its minimum before it is evicted, for
  // PodGroups without spec.stalenessGracePeriod; negative: never (KAI's
  // --default-staleness-grace-period).
  std::chrono::seconds default_staleness_grace_period{60};
  // KAI's time-based fairshare (usage_history.h): the window of past usage
  // that moves the queues' over-quota shares (0: off, unless the window
  // type is cron), how finely it is
  // kept, the half-life of its decay (0: none), and KAI's kValue.
  std::chrono::seconds usage_window{0};
  std::chrono::seconds usage_resolution{600};
  std::chrono::seconds usage_half_life{0};
  double usage_k = 1.0;
  // KAI's windowType: "sliding" (the last usage_window), "tumbling"
  // (windows of usage_window from usage_window_start, seconds since the
  // epoch, which tumbling requires) or "cron" (from the latest time
  // usage_cron names, a valid CronSchedule, which cron requires; on
  // whatever usage_window says).
  std::string usage_window_type = "sliding";
  std::optional<int64_t> usage_window_start;
  std::string usage_cron;
  // KAI's --restrict-node-scheduling and the label keys of its two node
  // roles (worker_roles.h).
  bool restrict_node_scheduling = false;
  std::string gpu_worker_node_label_key = kai::kGpuWorkerNodeLabel;
  std::string cpu_worker_node_label_key = kai::kCpuWorkerNodeLabel;
  // KAI's shards (node_pool.h): --nodepool-label-key and
  // --partition-label-value.
  std::string nodepool_label_key = kai::kNodePoolLabel;
  std::string partition_label_value;
  bool help = false;
};

// Parses `args` (without the program name). "--flag value" and
// "--flag=value"; booleans also bare. InvalidArgument naming the flag and
// what is wrong, for an unknown flag or a bad value.
Result<SchedulerFlags> ParseFlags(const std::vector<std::string>& args);

// The --help text: usage and every flag with its default.
std::string Usage();

}  // namespace vtenant::scheduler

#include "scheduler/worker_roles.h"

#include <algorithm>

namespace vtenant::scheduler {
namespace {

bool Has(const sched::LabelPairs& labels, std::string_view key) {
  return std::any_of(labels.begin(), labels.end(),
                     [&](const auto& label) { return label.first == key; });
}

bool AsksForGpu(const sched::PodSpec& pod) {
  return pod.whole_gpus > 0 || pod.gpu_fraction > 0 || pod.gpu_memory_mib > 0 || pod.mig_count > 0;
}

}  // namespace

bool WorkerRoles::Schedules(const sched::LabelPairs& labels) const {
  return !restrict || IsGpuWorker(labels) || IsCpuWorker(labels);
}

bool WorkerRoles::IsGpuWorker(const sched::LabelPairs& labels) const {
  return Has(labels, gpu_label);
}

bool WorkerRoles::IsCpuWorker(const sched::LabelPairs& labels) const {
  return Has(labels, cpu_label);
}

std::string_view WorkerRoles::RoleOf(const sched::PodSpec& pod) const {
  if (!restrict) return {};
  return AsksForGpu(pod) ? gpu_label : cpu_label;
}

void WorkerRoles::MarkNode(sched::NodeSpec* node) const {
  if (!restrict) return;
  const bool gpu = IsGpuWorker(node->labels);
  if (gpu) node->labels.emplace_back(kGpuWorkerRole, "true");
  if (IsCpuWorker(node->labels)) node->labels.emplace_back(kCpuWorkerRole, "true");
  node->gpus_in_capacity = gpu;
}

void WorkerRoles::HoldPod(sched::PodSpec* pod) const {
  if (!restrict) return;
  pod->node_affinity_in.push_back(
      {AsksForGpu(*pod) ? kGpuWorkerRole : kCpuWorkerRole, std::vector<std::string>{"true"}});
}

std::string WorkerRoles::NoNodeReason(const sched::PodSpec& pod, bool gpu_nodes,
                                      bool cpu_nodes) const {
  if (!restrict) return "";
  const bool gpu = AsksForGpu(pod);
  if (gpu ? gpu_nodes : cpu_nodes) return "";
  return std::string("no node carries label ") + (gpu ? gpu_label : cpu_label) +
         ": with --restrict-node-scheduling, pods asking for " + (gpu ? "a GPU" : "no GPU") +
         " go only to nodes that do";
}

}  // namespace vtenant::scheduler

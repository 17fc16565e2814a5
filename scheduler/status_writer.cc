#include "scheduler/status_writer.h"

#include <glog/logging.h>

#include "kube/quantity.h"
#include "kube/wall_time.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string GpuText(sched::Milli m) { return kube::Quantity::FromMilli(m).ToString(); }

}  // namespace

std::string ResourceListJson(const sched::ResourceVector& r) {
  Result<kube::Quantity> memory =
      kube::Quantity::FromValue(r[sched::kMemory], kube::Quantity::Format::kBinarySI);
  return "{" + Quote(kGpuResource) + ":" + Quote(GpuText(r[sched::kGpu])) + "," + Quote("cpu") +
         ":" + Quote(kube::Quantity::FromMilli(r[sched::kCpu]).ToString()) + "," + Quote("memory") +
         ":" + Quote(memory.ok() ? memory->ToString() : std::to_string(r[sched::kMemory])) + "}";
}

StatusWriter::StatusWriter(kube::Client& client, kube::Registry* registry) : client_(client) {
  writes_ =
      registry
          ->AddCounter("vtenant_scheduler_status_writes_total",
                       "Queue and PodGroup status writes by kind and result.", {"kind", "result"})
          .value();
}

void StatusWriter::SetQueue(const std::string& name, const QueueStatus& status) {
  std::lock_guard lock(mu_);
  queue_want_[name] = status;
}

void StatusWriter::SetPodGroup(const std::string& key, const PodGroupStatus& status) {
  std::lock_guard lock(mu_);
  group_want_[key] = status;
}

int StatusWriter::Flush() {
  std::map<std::string, QueueStatus> queues;
  std::map<std::string, PodGroupStatus> groups;
  std::map<std::string, QueueStatus> queues_before;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, s] : queue_want_) {
      auto it = queue_written_.find(name);
      if (it == queue_written_.end() || !(it->second == s)) {
        queues[name] = s;
        if (it != queue_written_.end()) queues_before[name] = it->second;
      }
    }
    for (const auto& [key, s] : group_want_) {
      auto it = group_written_.find(key);
      if (it == group_written_.end() || !(it->second == s)) groups[key] = s;
    }
  }
  int writes = 0;
  for (const auto& [name, s] : queues) {
    auto before = queues_before.find(name);
    Status w = WriteQueue(name, s, before == queues_before.end() ? nullptr : &before->second);
    ++writes;
    writes_->WithLabelValues({"queue", w.ok() ? "ok" : "error"}).Inc();
    if (!w.ok()) {
      LOG(WARNING) << "queue " << name << " status: " << w.ToString();
      continue;
    }
    std::lock_guard lock(mu_);
    queue_written_[name] = s;
  }
  for (const auto& [key, s] : groups) {
    Status w = WritePodGroup(key, s);
    ++writes;
    writes_->WithLabelValues({"podgroup", w.ok() ? "ok" : "error"}).Inc();
    if (!w.ok()) {
      if (w.code() != StatusCode::kNotFound)
        LOG(WARNING) << "podgroup " << key << " status: " << w.ToString();
      std::lock_guard lock(mu_);
      if (w.code() == StatusCode::kNotFound) group_want_.erase(key);
      continue;
    }
    std::lock_guard lock(mu_);
    group_written_[key] = s;
  }
  return writes;
}

Status StatusWriter::WriteQueue(const std::string& name, const QueueStatus& s,
                                const QueueStatus* before) {
  const std::string status = R"({"status":{"allocated":)" + ResourceListJson(s.allocated) +
                             R"(,"allocatedNonPreemptible":)" +
                             ResourceListJson(s.allocated_non_preemptible) + R"(,"requested":)" +
                             ResourceListJson(s.requested) + "}}";
  kube::PatchOptions opts;
  opts.subresource = "status";
  Result<kube::Object> r =
      client_.Patch(kube::resources::kQueues, "", name, kube::PatchType::kMerge, status, opts);
  if (!r.ok()) return r.status();
  if (before == nullptr || before->gpu_fair_share != s.gpu_fair_share) {
    const std::string annotation = R"({"metadata":{"annotations":{)" + Quote(kFairShareAnnotation) +
                                   ":" + Quote(GpuText(s.gpu_fair_share)) + "}}}";
    r = client_.Patch(kube::resources::kQueues, "", name, kube::PatchType::kMerge, annotation);
    if (!r.ok()) return r.status();
  }
  return Status::Ok();
}

Status StatusWriter::WritePodGroup(const std::string& key, const PodGroupStatus& s) {
  auto [ns, name] = kube::SplitKey(key);
  std::string conditions = "[]";
  if (!s.reason.empty()) {
    kube::Object msg(rapidjson::kStringType);
    msg.SetString(s.reason.c_str(), static_cast<rapidjson::SizeType>(s.reason.size()),
                  msg.GetAllocator());
    conditions =
        R"([{"type":"UnschedulableOnNodePool","nodePool":"default","status":"True","reason":"Unschedulable","message":)" +
        kube::ToJson(msg) + R"(,"lastTransitionTime":")" + kube::FormatRfc3339(kube::SystemNow()) +
        R"("}])";
  }
  const std::string patch = R"({"status":{"phase":)" + Quote(s.phase) + R"(,"running":)" +
                            std::to_string(s.running) + R"(,"pending":)" +
                            std::to_string(s.pending) + R"(,"schedulingConditions":)" + conditions +
                            "}}";
  kube::PatchOptions opts;
  opts.subresource = "status";
  return client_.Patch(kube::resources::kPodGroups, ns, name, kube::PatchType::kMerge, patch, opts)
      .status();
}

void StatusWriter::Run(kube::Cancellation& cancel, std::chrono::milliseconds period) {
  while (!cancel.WaitFor(period)) Flush();
  Flush();
}

}  // namespace vtenant::scheduler

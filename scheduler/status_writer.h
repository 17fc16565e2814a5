// StatusWriter: Queue and PodGroup status, written in batches.
//
// Each cycle tells the writer what every status should be; Flush() writes
// only what differs from what it last wrote, so 1,000 queues whose numbers
// did not move cost no writes, and a cycle every second does not mean a
// write every second (the loop flushes every `period`).
//
// Queue status is KAI's: status.allocated, allocatedNonPreemptible and
// requested as resource lists ({"nvidia.com/gpu": "330m", "cpu": "2",
// "memory": "4Gi"}). The fair share goes in the annotation
// vtenant.io/gpu-fair-share, which our Queue CRD prints (and which a KAI
// CRD keeps, being an annotation). PodGroups get status.phase and a
// schedulingConditions entry with the reason a pending group waits.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "kube/cancellation.h"
#include "kube/client.h"
#include "kube/metrics.h"
#include "scheduler-core/resources.h"

namespace vtenant::scheduler {

struct QueueStatus {
  sched::ResourceVector allocated;
  sched::ResourceVector allocated_non_preemptible;
  sched::ResourceVector requested;
  sched::Milli gpu_fair_share = 0;
  bool operator==(const QueueStatus&) const = default;
};

struct PodGroupStatus {
  std::string phase;   // Pending, Running
  std::string reason;  // why it is pending, "" when not
  int32_t running = 0;
  int32_t pending = 0;
  bool operator==(const PodGroupStatus&) const = default;
};

// {"nvidia.com/gpu":"330m","cpu":"500m","memory":"1Gi"}: a resource list.
std::string ResourceListJson(const sched::ResourceVector& r);

class StatusWriter {
 public:
  StatusWriter(kube::Client& client, kube::Registry* registry = &kube::DefaultRegistry());

  void SetQueue(const std::string& name, const QueueStatus& status);
  void SetPodGroup(const std::string& key, const PodGroupStatus& status);

  // Writes every status that changed since it was last written. A failed
  // write is retried at the next flush. Returns the number of writes made.
  int Flush();

  // Flushes every `period` until `cancel` fires, then once more.
  void Run(kube::Cancellation& cancel, std::chrono::milliseconds period);

 private:
  Status WriteQueue(const std::string& name, const QueueStatus& s, const QueueStatus* before);
  Status WritePodGroup(const std::string& key, const PodGroupStatus& s);

  kube::Client& client_;
  kube::Family<kube::Counter>* writes_ = nullptr;
  std::mutex mu_;
  std::map<std::string, QueueStatus> queue_want_, queue_written_;
  std::map<std::string, PodGroupStatus> group_want_, group_written_;
};

}  // namespace vtenant::scheduler

// StatusWriter: Queue and PodGroup status, written in batches.
//
// Each cycle tells the writer what every status should be; Flush() compares
// that with the object as the informer last saw it and writes only what
// differs, so 1,000 queues whose numbers did not move cost no writes, and a
// cycle every second does not mean a write every second (the loop flushes
// every `period`). Comparing with the live copy, not with what was last
// written, is what heals: a Queue deleted and re-created (an operator
// healing drift) or whose status someone cleared gets its status again at
// the next flush.
//
// Queue status is KAI's: status.allocated, allocatedNonPreemptible and
// requested as resource lists ({"nvidia.com/gpu": "330m", "cpu": "2",
// "memory": "4Gi"}), and childQueues, the names of its children (left out
// for a queue without, as KAI leaves it). The fair share goes in the annotation
// vtenant.io/gpu-fair-share, which our Queue CRD prints (and which a KAI
// CRD keeps, being an annotation). PodGroups get status.phase, running
// and pending, resourcesStatus (allocated, allocatedNonPreemptible and
// requested, resource lists as the Queue's), and for a pending group one
// schedulingConditions entry as KAI writes it: type
// UnschedulableOnNodePool, reason Unschedulable, the reason as message,
// and reasons [{reason: <kind>, message: <reason>}]. And, as KAI's status
// updater keeps them, the annotations kai.scheduler/stale-podgroup-
// timestamp (while the group runs below its minimum) and kai.scheduler/
// last-eviction-timestamp, so that a restarted scheduler reads them back.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "kube/cancellation.h"
#include "kube/client.h"
#include "kube/json_builder.h"
#include "kube/metrics.h"
#include "scheduler-core/resources.h"

namespace vtenant::scheduler {

struct QueueStatus {
  sched::ResourceVector allocated;
  sched::ResourceVector allocated_non_preemptible;
  sched::ResourceVector requested;
  sched::Milli gpu_fair_share = 0;
  std::vector<std::string> child_queues;  // sorted
  bool operator==(const QueueStatus&) const = default;
};

struct PodGroupStatus {
  std::string phase;   // Pending, Running
  std::string reason;  // why it is pending, "" when not
  int32_t running = 0;
  int32_t pending = 0;
  // The reason's kind in KAI's words (kai/names.h: OverLimit, ...), when
  // `reason` is set.
  std::string kind;
  // status.resourcesStatus: what its pods hold (and of it, held by a
  // non-preemptible group) and what they all ask for.
  sched::ResourceVector allocated;
  sched::ResourceVector allocated_non_preemptible;
  sched::ResourceVector requested;
  // Seconds, written as the annotations kai/names.h names
  // (stale-podgroup-timestamp, last-eviction-timestamp,
  // last-start-timestamp): since when the group runs below its minimum (-1:
  // it does not; the annotation goes), when it last lost a pod to an
  // eviction and when its pods were last placed (0: never; nothing
  // written). nullopt leaves all three as they are.
  std::optional<int64_t> stale_since;
  int64_t last_eviction = 0;
  int64_t last_start = 0;
  bool operator==(const PodGroupStatus&) const = default;
};

// {"nvidia.com/gpu":"330m","cpu":"500m","memory":"1Gi"}: a resource list.
kube::JsonObject ResourceList(const sched::ResourceVector& r);

// Whether `live` (a Queue or PodGroup object) already shows the status. A
// PodGroup's phase, running and pending count only where its CRD keeps
// them (vtenant's does, KAI's does not).
bool QueueShows(const rapidjson::Value& live, const QueueStatus& s);
bool PodGroupShows(const rapidjson::Value& live, const PodGroupStatus& s);

// The current copy of an object by key ("name" for Queues, "ns/name" for
// PodGroups), null when it does not exist: an informer cache's Get.
using LiveLookup = std::function<kube::ObjectPtr(const std::string& key)>;

class StatusWriter {
 public:
  // `queues` and `podgroups` give the live copies the writer compares with;
  // `node_pool` names the scheduler's pool in the groups' conditions
  // (NodePool::Name).
  StatusWriter(kube::Client& client, LiveLookup queues, LiveLookup podgroups,
               kube::Registry* registry = &kube::DefaultRegistry(),
               std::string node_pool = "default");

  void SetQueue(const std::string& name, const QueueStatus& status);
  void SetPodGroup(const std::string& key, const PodGroupStatus& status);

  // Writes every status the live object does not show yet. An object that
  // no longer exists is forgotten; a failed write is retried at the next
  // flush. A write the informer has not delivered yet (the live copy is
  // still the one the write was made against) is not repeated. Returns the
  // number of writes made.
  int Flush();

  // Flushes every `period` until `cancel` fires, then once more.
  void Run(kube::Cancellation& cancel, std::chrono::milliseconds period);

 private:
  // What a write was made against, so an informer that lags is not taken
  // for a status that went missing.
  struct Written {
    std::string uid;
    std::string resource_version;  // of the live copy the write was made against
  };
  template <typename S>
  struct Want {
    S status;
    std::optional<S> written_status;
    Written written;
  };

  // The wanted statuses that their live objects do not show, with those
  // objects; wants whose object is gone are dropped.
  template <typename S, typename Shows>
  std::vector<std::tuple<std::string, S, kube::ObjectPtr>> Stale(
      std::map<std::string, Want<S>>& wants, const LiveLookup& lookup, Shows shows);
  // Notes that `status` was written against `live`.
  template <typename S>
  void Record(std::map<std::string, Want<S>>& wants, const std::string& key, const S& status,
              const rapidjson::Value& live);
  Status WriteQueue(const std::string& name, const QueueStatus& s, const rapidjson::Value& live);
  Status WritePodGroup(const std::string& key, const PodGroupStatus& s,
                       const rapidjson::Value& live);

  kube::Client& client_;
  const LiveLookup live_queues_;
  const LiveLookup live_podgroups_;
  const std::string node_pool_;
  kube::Family<kube::Counter>* writes_ = nullptr;
  std::mutex mu_;
  std::map<std::string, Want<QueueStatus>> queues_;
  std::map<std::string, Want<PodGroupStatus>> groups_;
};

}  // namespace vtenant::scheduler

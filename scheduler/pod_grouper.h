// PodGrouper: gives every pod of ours a PodGroup, as KAI's pod-grouper does,
// so the scheduler can gang it and users see the groups KAI would make.
//
// A pod with annotation pod-group-name already has its group, and one whose
// own or an owner's annotation kai.scheduler/skip-podgrouper is "true" gets
// its group elsewhere (as KAI's grouper). Otherwise the
// ownerReferences are walked to the top owner (an owner it cannot read ends
// the walk), the PodGroup that grouping_rules.h plans for that owner's kind
// is created (owned by the plan's owner, so it goes with it), and the pod is
// annotated with the group's name. An owner whose spec gives no minMember
// gets the pod a Warning Event (KAI's reason, PodGrouperWarning) saying what
// to fix.
// A bare pod needs no object to be scheduled (the cycle takes it as a job of
// its own at once), so its PodGroup, which users and tools read, waits
// until the pod is bound or has waited `bare_pod_delay`: a burst of pods
// leaves the client's rate to its binds first. The binder names a bare
// pod's group in its binding (PodOwnGroupName), so such a pod comes here
// annotated already, and only its group is made.
// A group that exists already takes the gang minimum and sub-groups the
// new pod's plan gives (minMember, minSubGroup, subGroups), as KAI's
// grouper rewrites a group's spec for each pod it groups: a
// LeaderWorkerSet under startupPolicy LeaderReady asks for its leader
// alone first, and for the whole group once the workers come. A group
// made without sub-groups (before its kind had them) keeps none, and its
// new pods join it unlabelled, as KAI keeps its Ray groups of before.
// Level-triggered and idempotent: creating an existing group or
// re-annotating changes nothing.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "kube/client.h"
#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "kube/informer.h"
#include "kube/wall_time.h"
#include "scheduler/node_pool.h"

namespace vtenant::scheduler {

class PodGrouper : public kube::Reconciler {
 public:
  // `pods` is the informer of every pod; `podgroup` looks a PodGroup up by
  // key in a cache (nullptr when it has none), so a group the binder named
  // is made once, not at every update of its pod. All must outlive the
  // grouper. `now` is the wall clock the bare-pod delay is measured on.
  PodGrouper(kube::Client& client, const kube::SharedInformer& pods,
             std::function<kube::ObjectPtr(const std::string& key)> podgroup,
             kube::EventRecorder& events, std::string scheduler_name,
             std::chrono::seconds bare_pod_delay = std::chrono::seconds(5),
             kube::WallClock now = kube::SystemNow, NodePool pool = {})
      : client_(client),
        pods_(pods),
        podgroup_(std::move(podgroup)),
        events_(events),
        scheduler_name_(std::move(scheduler_name)),
        bare_pod_delay_(bare_pod_delay),
        now_(std::move(now)),
        pool_(std::move(pool)) {}

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

 private:
  // Brings `current`, the cache's copy of the group `planned` names, to
  // `planned`'s minMember, minSubGroup and subGroups. OK and nothing
  // written when they agree or `current` is null (the cache has not seen
  // the group yet; the next pod of the group tries again).
  Status FollowPlan(const rapidjson::Value* current, const kube::Object& planned);

  // Whether a launcher pod of MPIJob ns/job exists and is not leaving.
  bool MpiLauncherExists(const std::string& ns, std::string_view job) const;

  kube::Client& client_;
  const kube::SharedInformer& pods_;
  const std::function<kube::ObjectPtr(const std::string&)> podgroup_;
  kube::EventRecorder& events_;
  const std::string scheduler_name_;
  const std::chrono::seconds bare_pod_delay_;
  const kube::WallClock now_;
  const NodePool pool_;
};

}  // namespace vtenant::scheduler

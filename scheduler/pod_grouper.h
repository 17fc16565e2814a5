// PodGrouper: gives every pod of ours that has a controller a PodGroup, as
// KAI's pod-grouper does, so the scheduler can gang it.
//
// A pod with annotation pod-group-name already has its group. Otherwise the
// ownerReferences are walked to the top owner (Job, Deployment via its
// ReplicaSet, StatefulSet, or any custom kind), and the PodGroup
// "pg-<owner>-<owner uid>" is created, owned by it, with
//   minMember: the Job's parallelism (default 1); 1 for everything else;
//   queue:     label kai.scheduler/queue of the pod, else of an owner, else
//              "default-queue";
//   priorityClassName: the pod's;
// then the pod is annotated with the group's name. A pod without any owner
// is a job of its own and needs no PodGroup object. Level-triggered and
// idempotent: creating an existing group or re-annotating changes nothing.
#pragma once

#include <string>

#include "kube/client.h"
#include "kube/controller.h"
#include "kube/informer.h"

namespace vtenant::scheduler {

// The minMember KAI computes for a top owner of this kind.
int32_t MinMemberFor(const rapidjson::Value& top_owner);

class PodGrouper : public kube::Reconciler {
 public:
  // `pods` is the informer of every pod; both must outlive the grouper.
  PodGrouper(kube::Client& client, const kube::SharedInformer& pods, std::string scheduler_name)
      : client_(client), pods_(pods), scheduler_name_(std::move(scheduler_name)) {}

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

 private:
  kube::Client& client_;
  const kube::SharedInformer& pods_;
  const std::string scheduler_name_;
};

}  // namespace vtenant::scheduler

// PodGrouper: gives every pod of ours a PodGroup, as KAI's pod-grouper does,
// so the scheduler can gang it and users see the groups KAI would make.
//
// A pod with annotation pod-group-name already has its group. Otherwise the
// ownerReferences are walked to the top owner (an owner it cannot read ends
// the walk), the PodGroup that grouping_rules.h plans for that owner's kind
// is created (owned by the plan's owner, so it goes with it), and the pod is
// annotated with the group's name. An owner whose spec gives no minMember
// gets the pod a Warning Event (PodGroupNotCreated) saying what to fix.
// Level-triggered and idempotent: creating an existing group or
// re-annotating changes nothing.
#pragma once

#include <string>

#include "kube/client.h"
#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "kube/informer.h"

namespace vtenant::scheduler {

class PodGrouper : public kube::Reconciler {
 public:
  // `pods` is the informer of every pod; all must outlive the grouper.
  PodGrouper(kube::Client& client, const kube::SharedInformer& pods, kube::EventRecorder& events,
             std::string scheduler_name)
      : client_(client), pods_(pods), events_(events), scheduler_name_(std::move(scheduler_name)) {}

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

 private:
  // Whether a launcher pod of MPIJob ns/job exists and is not leaving.
  bool MpiLauncherExists(const std::string& ns, std::string_view job) const;

  kube::Client& client_;
  const kube::SharedInformer& pods_;
  kube::EventRecorder& events_;
  const std::string scheduler_name_;
};

}  // namespace vtenant::scheduler

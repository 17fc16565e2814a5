// PodGroupValidator: tells a team, on its own virtual KAI PodGroup, when the
// syncer refuses that group's spec (GangOfPodGroup: a priority class the
// host does not offer, a topologyConstraint podgroup_fields.h refuses, or
// what kai::ReadPodGroupSpec refuses: a minMember below 1, a preemptibility
// or markUnschedulable KAI does not accept, malformed subGroups). Keys are
// virtual "namespace/name" of PodGroups. The refusal is a Warning Event
// `InvalidGang` on the PodGroup saying why; meanwhile its new pods are
// refused with the same reason and the host PodGroup keeps the spec it had
// (PodGroupSyncer).
//
// One Event per version of the group: a resync of an unchanged group does
// not repeat it, a new refused edit does.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

class PodGroupValidator : public kube::Reconciler {
 public:
  // `events` records in the virtual cluster. Everything must outlive it.
  PodGroupValidator(SyncerInformers& informers, const SyncerConfig& config,
                    kube::EventRecorder& events);

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

 private:
  SyncerInformers& informers_;
  const SyncerConfig& config_;
  kube::EventRecorder& events_;

  std::mutex mu_;
  std::map<std::string, std::string> warned_;  // key → "uid/resourceVersion" last warned of
};

}  // namespace vtenant::syncer

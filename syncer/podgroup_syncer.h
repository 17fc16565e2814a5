// PodGroupSyncer: the host PodGroups of tenant gangs (gang.h). The pod
// syncer calls Ensure before creating a gang's first host pod. Reconcile
// (keys are host "namespace/name" of PodGroups; host PodGroups, host pods
// and virtual KAI PodGroups enqueue them) brings a host PodGroup that
// stands for a virtual PodGroup level with it at once (minMember or
// minSubGroup, subGroups, priorityClassName, preemptibility,
// markUnschedulable, preemptionDelay, stalenessGracePeriod,
// topologyConstraint; the queue is always the tenant's; any other member is
// left out and counted, podgroup_fields.h), and
// deletes a host PodGroup once no host pod names it and no virtual pod
// belongs to the workload it records any more, directly or through the
// workload's Jobs (a JobSet's) or StatefulSets (a LeaderWorkerSet's
// leaders: each of its groups stays while any leader does); one that
// records none is left alone.
//
// A virtual PodGroup deleted while its pods still run leaves the host
// PodGroup as it last was until the last of those pods goes: deleting it
// would leave running host pods naming a group KAI cannot find, and a gang
// is never torn apart from the virtual side (docs/architecture.md,
// "Syncer rules", rule 2). Pods that name the deleted group afterwards
// wait for it, as they do before it exists.
#pragma once

#include <string>

#include "kube/controller.h"
#include "syncer/gang.h"
#include "syncer/sync_metrics.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

// A kube::Reconciler as every syncer of syncer.h is: alike in form on
// purpose, the rules are each kind's own.
class PodGroupSyncer : public kube::Reconciler {
 public:
  // Host PodGroups go to `config`'s host namespace, under the tenant's host
  // names; `metrics` counts writes, errors and the spec members left out.
  PodGroupSyncer(SyncerInformers& informers, const SyncerConfig& config, SyncMetrics& metrics);

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

  // The host PodGroup of `gang` exists with what the gang asks for (see
  // PodGroupUpdate); `priority_class` is the pod's (its spec's, else its
  // label priorityClassName), used when a workload's gang has none (a
  // virtual PodGroup's names its own or none).
  // AlreadyExists, and nothing written, when its host name is held by a
  // PodGroup that records another virtual PodGroup or workload, or by one
  // the syncer did not make (host_identity.h).
  Status Ensure(const Gang& gang, std::string_view ns, std::string_view priority_class);

  // The key of the host PodGroup that stands for virtual PodGroup `pg`.
  std::string HostKeyOf(const rapidjson::Value& pg) const;

 private:
  // Brings `host`, standing for a virtual PodGroup, level with it; OK and
  // nothing written when the virtual PodGroup is gone or malformed (the
  // pods that need it next are refused with the reason).
  Status FollowVirtual(const rapidjson::Value& host);
  // Writes `update` of the host PodGroup of `gang`, counting what the
  // gang's spec left out.
  Status Write(const kube::Object& update, const Gang& gang);

  SyncerInformers& informers_;
  const SyncerConfig& config_;
  SyncMetrics& metrics_;
};

}  // namespace vtenant::syncer

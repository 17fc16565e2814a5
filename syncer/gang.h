// Gangs across the boundary (docs/architecture.md, "Syncer rules", rule 2):
// the pods of one virtual workload become one host PodGroup in the
// tenant's queue, with the minMember KAI's pod grouper would give that
// workload on a dedicated cluster, and each host pod names it in
// `pod-group-name`.
//
// Which workload a pod belongs to, and its minMember:
//   - pod annotated `pod-group-name: g`: the virtual PodGroup g
//     (scheduling.run.ai/v2alpha2), its spec.minMember or spec.minSubGroup,
//     spec.subGroups, spec.priorityClassName, spec.preemptibility and
//     spec.markUnschedulable, mirrored on the host group (spec.queue never:
//     the tenant's queue always);
//   - otherwise the top of its owner chain, except that a Deployment's pods
//     group by ReplicaSet and a CronJob's by Job (one run of the workload),
//     and a top owner kai/top_owner.h passes over by the owner below it (a
//     Kubeflow Trainer TrainJob's pods by its JobSet, a RayJob's submitter
//     by its Job; with none below it, as an Argo Workflow's steps, the pod
//     is a job of its own, as a bare pod is), and a Knative Service's pods
//     by their Revision (minMember its min-scale, kai/knative.h):
//       Kubeflow training jobs (kubeflow.org: PyTorchJob, TFJob,
//         XGBoostJob, JAXJob, MPIJob): KAI's minMember of
//         kai/kubeflow_job.h, an MPIJob counted as before its launcher
//         exists (a launcher made once the workers run joins their gang);
//         a PyTorchJob's split between its master and workers
//         (kai/pytorch_job_gang.h), the host pod labelled with its own;
//       a JobSet: KAI's gang of kai/jobset_gang.h, a parent sub-group per
//         replicatedJob and a leaf per replica, with the group's
//         minSubGroup; the host pod is labelled with its leaf;
//       a KubeRay RayCluster, RayJob or RayService: KAI's gang of
//         kai/ray_gang.h, counted on the RayCluster in the chain, a
//         sub-group for the head and each worker group; the host pod is
//         labelled with its own; the top owner's ray.io/priority-class-name
//         label names the group's class when the tenant may use it;
//       a LeaderWorkerSet (its workers are owned through their leader
//         pod): KAI's gang of kai/leader_worker_set_gang.h, one host group
//         per replica group (WorkloadPodGroupName of "<lws>-group-<i>"),
//         minMember its size, sub-groups leader and workers (or segments);
//         the host pod is labelled with its leaf;
//       a Grove PodCliqueSet (or PodGangSet): the gang of the virtual
//         PodGang the pod's label grove.io/podgang names, as KAI's grove
//         grouper makes it (kai/grove_gang.h; WorkloadPodGroupName of the
//         PodGang), a leaf per podgroup under its configs' parents, the
//         host pod labelled with the podgroup that lists it, the priority
//         class the PodGang or else the PodCliqueSet names when the tenant
//         may use it, and the PodGang's pack constraint, completed from
//         the topology annotations of the PodGang, then the PodCliqueSet;
//       anything else (Job, ReplicaSet, StatefulSet, ...): the
//         owner's `kai.scheduler/batch-min-member` annotation as
//         kai/min_member.h reads it, else 1;
//   - a pod without owner or group: no gang (the host's grouper handles it
//     alone, as KAI does for bare pods).
// A workload's gang also takes spec.preemptibility from the first valid
// `kai.scheduler/preemptibility` label (preemptible, non-preemptible) of
// its owners, top first, then of the pod, as KAI's pod grouper does; an
// invalid value is ignored there too. Likewise spec.preemptionDelay and
// spec.stalenessGracePeriod from the annotations kai.scheduler/
// preemption-delay and kai.scheduler/staleness-grace-period.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "kube/object.h"
#include "syncer/allowlist.h"
#include "syncer/names.h"
#include "syncer/owner_chain.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

struct Gang {
  std::string host_name;  // the host PodGroup, also the pods' pod-group-name
  int64_t min_member = 1;
  kube::OwnerReference owner;  // the virtual workload (or PodGroup) it stands for
  // A virtual PodGroup's spec.minSubGroup: how many of its top-level
  // sub-groups must be satisfied. When set, the host group carries it in
  // place of minMember (KAI refuses the two together).
  std::optional<int32_t> min_sub_group;
  // A virtual PodGroup's spec.subGroups, as JSON, carried verbatim (the
  // pods' `kai.scheduler/subgroup-name` labels travel with them, and the
  // host scheduler validates the list), or a JobSet's or LeaderWorkerSet's
  // as KAI makes them; empty when it has none.
  std::string sub_groups;
  // The leaf sub-group of the pod the gang was read for, when the gang puts
  // it in one (a JobSet's replica, a LeaderWorkerSet's leader or workers):
  // its host pod's `kai.scheduler/subgroup-name`, whatever the virtual pod
  // says.
  std::string pod_sub_group;
  // A virtual PodGroup's spec.priorityClassName, when it names one the host
  // offers; empty: a virtual PodGroup's host group has none (KAI then
  // gives it the default priority), a workload's takes its first pod's.
  std::string priority_class;
  // KAI's spec.preemptibility, "preemptible" or "non-preemptible"; empty:
  // none (KAI derives it from the priority).
  std::string preemptibility;
  // A virtual PodGroup's spec.markUnschedulable, when it sets one.
  std::optional<bool> mark_unschedulable;
  // KAI's spec.preemptionDelay and spec.stalenessGracePeriod, as written
  // ("30s"): a virtual PodGroup's, or a workload's from the first valid
  // kai.scheduler/preemption-delay (staleness-grace-period) annotation of
  // its owners, top first, then of the pod (kai::ReadWorkloadTimings); empty:
  // none. They hold back only the tenant's own gang: a delay keeps it from
  // evicting others for a while, a grace period lets it run below its
  // minimum, in its own queue, longer.
  std::string preemption_delay;
  std::string staleness_grace_period;
  // A virtual PodGroup's spec.topologyConstraint as JSON, with only the
  // members podgroup_fields.h allows, or a workload's from KAI's topology
  // annotations on it (kai.scheduler/topology, -required-placement,
  // -preferred-placement, as KAI's pod grouper reads them); empty when it
  // has none.
  std::string topology_constraint;
  // The members of a virtual PodGroup's spec its host group leaves out
  // (podgroup_fields.h), for vtenant_syncer_dropped_fields_total.
  DroppedFields dropped;

  // Whether it stands for a virtual PodGroup (rather than a Job, ...), whose
  // spec the host group mirrors: what the virtual one lacks, it lacks too.
  bool FollowsPodGroup() const;
};

// The gang of virtual pod `pod` whose owner chain is `chain`: a virtual
// PodGroup's (GangOfPodGroup), or its workload's, whose host PodGroup is
// WorkloadPodGroupName(owner, owner UID, ns, tenant). nullopt for a pod of
// no workload, and for one whose only owner KAI passes over
// (kai::PassesOverTopOwner: an Argo Workflow's step), which is a job of its
// own as a bare pod is. InvalidArgument when the workload's minMember is
// malformed (a refusal the tenant must fix); FailedPrecondition when an
// object it needs is not in the lookup yet (the virtual PodGroup, the
// owning Job, ReplicaSet or Kubeflow job, or any owner of a kind the lookup
// knows, whose preemptibility label may be the one that counts): retry
// later.
Result<std::optional<Gang>> GangOf(const rapidjson::Value& pod,
                                   const std::vector<kube::OwnerReference>& chain,
                                   ObjectLookup& lookup, const SyncerConfig& config);

// `gang` as it joins `host`, its host PodGroup (nullptr: not made yet): a
// workload's group made without sub-groups (before the syncer gave its
// kind any) keeps none, so its sub-groups, minSubGroup and pod sub-group
// are dropped, and the pod joins it as its running pods did, with no
// sub-group label (labelled, they would belong to no sub-group of it).
// The host's grouper keeps such groups alike (scheduler/pod_grouper.h).
// A virtual PodGroup's gang is left as it is: its group follows it.
void KeepHostGroupShape(Gang& gang, const rapidjson::Value* host);

// The gang of virtual KAI PodGroup `pg` in virtual namespace `ns`: host
// name HostName(its name, ns, tenant), spec.minMember (1 when unset),
// spec.subGroups and spec.topologyConstraint as podgroup_fields.h allows
// them, spec.priorityClassName, spec.preemptibility and
// spec.markUnschedulable. InvalidArgument, naming the PodGroup and the
// field, when kai::ReadPodGroupSpec refuses the spec (a minMember below 1,
// a preemptibility that is not one of KAI's values, a markUnschedulable
// that is not a boolean, malformed subGroups: what the host scheduler
// would refuse too), podgroup_fields.h refuses its topologyConstraint, or
// the priority class is neither one the host offers nor a system class
// (system classes are dropped, as on pods).
Result<Gang> GangOfPodGroup(const rapidjson::Value& pg, std::string_view ns,
                            const SyncerConfig& config);

// The host PodGroup of `gang`, for pods in virtual namespace `ns`, built
// from what the syncer knows alone: queue and labels of the tenant,
// minMember, sub-groups, topology constraint, preemptibility,
// markUnschedulable, preemptionDelay, stalenessGracePeriod, and the gang's
// priorityClassName, else (a workload's
// gang only) the pod's `priority_class` when the host has it.
kube::Object PodGroupToHost(const Gang& gang, std::string_view ns, std::string_view priority_class,
                            const SyncerConfig& config);

// Whether host PodGroup `host` stands for a virtual PodGroup (its owner
// chain annotation says so) rather than for a Job, ReplicaSet, ...
bool StandsForVirtualPodGroup(const rapidjson::Value& host);

// `host`, an existing host PodGroup, with what `gang` asks for: minMember,
// subGroups, preemptibility, preemptionDelay, stalenessGracePeriod, the
// tenant's queue, the virtual UID, and the
// gang's priorityClassName (a workload's group keeps its class when the
// gang names none); for a virtual PodGroup's gang also markUnschedulable
// and topologyConstraint, and a field the virtual group no longer sets is
// removed. nullopt when it already has all of it. Every other field
// (status, what KAI wrote) is kept.
std::optional<kube::Object> PodGroupUpdate(const rapidjson::Value& host, const Gang& gang,
                                           const SyncerConfig& config);

}  // namespace vtenant::syncer

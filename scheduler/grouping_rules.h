// PlanPodGroup: the PodGroup KAI's pod-grouper makes for a pod, decided by
// the kind of the pod's top owner, as KAI's grouper plugins decide it:
//
//   no owner (a bare pod)       pg-<pod>-<pod uid>, owned by the pod, minMember 1
//   batch Job                   pg-<owner>-<owner uid>, minMember from the owner's
//                               annotation kai.scheduler/batch-min-member, else 1
//                               (a Job's pods start as they fit unless it asks)
//   jobset.x-k8s.io JobSet      pg-<owner>-<owner uid>, a sub-group per replica
//                               under minSubGroup (kai/jobset_gang.h)
//   trainer.kubeflow.org TrainJob, run.ai workloads, nvidia.com
//   DynamoGraphDeployment       as the owner below it (PassOverTopOwner)
//   argoproj.io Workflow        each pod as a bare pod, with the Workflow's
//                               labels and annotations (PassOverTopOwner)
//   serving.knative.dev Service pg-<revision>-<revision uid>: its Revision's
//                               (PassOverTopOwner), minMember the Revision's
//                               min-scale, default priority class "inference"
//                               (kai/knative.h)
//   leaderworkerset.x-k8s.io LeaderWorkerSet
//                               pg-<owner>-<owner uid>-group-<group index>: one
//                               group per leader and its workers, minMember the
//                               group's size, sub-groups leader and workers (or
//                               segments) (kai/leader_worker_set_gang.h)
//   apps Deployment             pg-<pod>-<pod uid>, owned by the pod, minMember 1,
//                               default priority class "inference"
//   kubeflow.org PyTorchJob     spec.runPolicy.schedulingPolicy.minAvailable, else
//                               spec.elasticPolicy.minReplicas, else the sum of
//                               pytorchReplicaSpecs.*.replicas; sub-groups master
//                               and worker (kai/pytorch_job_gang.h)
//   kubeflow.org TFJob, XGBoostJob, JAXJob
//                               schedulingPolicy.minAvailable, else the sum of replicas
//   kubeflow.org Notebook       pg-<owner>-<owner uid>, minMember 1, default
//                               priority class "build" (interactive)
//   egx.nvidia.io SPOTRequest   the same, default priority class "inference"
//   kubeflow.org MPIJob         as above over mpiReplicaSpecs (Launcher and Worker
//                               required); with launcherCreationPolicy
//                               WaitForWorkersReady and no launcher pod yet, the
//                               launcher is not counted (the Kubeflow rules are
//                               kai/kubeflow_job.h's, which the syncer reads too)
//   ray.io RayCluster           1 (head) + per worker group not suspended:
//                               (minReplicas if > 0, else replicas) x numOfHosts,
//                               a sub-group each (kai/ray_gang.h);
//   ray.io RayJob, RayService   the same, of the RayCluster in the owner chain
//                               (a pod no RayCluster owns, the submitter, as
//                               the owner below: PassOverTopOwner);
//                               label ray.io/priority-class-name on the top owner
//                               sets the priority class
//   grove.io PodCliqueSet (or PodGangSet)
//                               pg-<podgang>-<podgang uid>, owned by the PodGang
//                               the pod's label grove.io/podgang names: a
//                               sub-group per podgroup under the parents of its
//                               topology configs, minMember the sum of their
//                               minReplicas (kai/grove_gang.h); labels and
//                               annotations the PodGang's, then the PodCliqueSet's;
//                               priority class label priorityClassName of either,
//                               else the PodGang's spec.priorityClassName, else as
//                               below; topology the PodGang's packConstraint, else
//                               the annotations below of either
//   anything else (ReplicaSet, StatefulSet, custom kinds)
//                               pg-<top owner>-<top owner uid>, minMember 1
//
// Every group: queue from label kai.scheduler/queue of the top owner, else of
// the pod, else "default-queue"; priority class the pod's
// spec.priorityClassName, else label priorityClassName of the top owner, else
// of the pod, else the kind's default ("train"); preemptibility the first
// valid ("preemptible" or "non-preemptible") label kai.scheduler/preemptibility
// of the owners, top first, then of the pod, else none (the scheduler then
// derives it from the priority); spec.preemptionDelay and
// spec.stalenessGracePeriod likewise from the annotations kai.scheduler/
// preemption-delay and kai.scheduler/staleness-grace-period (invalid
// values passed over); spec.topologyConstraint from the top
// owner's annotations kai.scheduler/topology, kai.scheduler/topology-
// required-placement and kai.scheduler/topology-preferred-placement;
// labels and annotations as GroupPlan says.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "kai/podgroup_spec.h"
#include "kai/sub_group_gang.h"
#include "kai/workload_topology.h"
#include "kube/object.h"
#include "kube/owner_reference.h"

namespace vtenant::scheduler {

struct GroupPlan {
  std::string name;
  kube::OwnerReference owner;  // the PodGroup goes away with it
  int32_t min_member = 1;
  std::string queue;
  std::string priority_class;
  std::string preemptibility;  // "" when no label gives one
  // spec.preemptionDelay and spec.stalenessGracePeriod, from the first valid
  // annotation of the owners, top first, then of the pod
  // (kai::ReadWorkloadTimings); "" when none gives one.
  kai::WorkloadTimings timings;
  // spec.topologyConstraint, from the top owner's annotations
  // (kai/workload_topology.h).
  kai::TopologyConstraint topology;
  // A workload whose pods have roles (kai/sub_group_gang.h: a JobSet's
  // replicas, a LeaderWorkerSet's leader and workers, a PyTorchJob's
  // master and workers, a RayCluster's head and worker groups):
  // spec.subGroups, spec.minSubGroup in place of minMember when it sets one
  // (min_member holds its minMember otherwise), and the pod's leaf for its
  // kai.scheduler/subgroup-name label.
  std::optional<kai::SubGroupGang> gang;
  // metadata.labels and .annotations, as KAI's grouper writes them: the top
  // owner's (the pod's, for a bare pod), and the pod's "user" label and
  // annotation where the owner has none; annotation kai.scheduler/top-
  // owner-metadata says which object that is. Keys under vtenant.io/ are
  // not copied: they mark objects vtenant's own components make (a tenant's
  // pod carries the syncer's), which a PodGroup is not.
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  bool operator==(const GroupPlan&) const = default;
};

struct GroupInputs {
  const rapidjson::Value* pod = nullptr;
  // The pod's controllers as read from the API server, nearest first; the
  // last is the top owner. Empty for a pod without one.
  std::vector<const rapidjson::Value*> owners;
  // MPIJob only: whether a launcher pod of the job exists (not terminating).
  bool mpi_launcher_exists = false;
  // A Grove workload only (kai::IsGroveWorkload): the PodGang the pod's
  // label grove.io/podgang names.
  const rapidjson::Value* pod_gang = nullptr;
};

// `owners` (nearest first) with a top owner that is passed over
// (kai/top_owner.h: a TrainJob, an Argo Workflow, a Run:ai workload; a
// RayJob above no RayCluster) removed, and its labels and annotations given
// to the owner below it where that one has none of its own, as KAI's
// skip-top-owner grouper does: the pods are then grouped as that owner's (a
// TrainJob's JobSet, a RayJob's submitter Job), with a queue label written
// on the top owner. When it was the pod's only owner, the pod is below it:
// the copy `lone` of `pod` takes them, and is returned to be grouped as a
// pod of its own (each step of an Argo Workflow). Otherwise returns `pod`.
// A Knative Service's owners above its Revision are removed, and give it
// nothing: KAI groups by the Revision and reads its labels alone.
const rapidjson::Value& PassOverTopOwner(std::vector<kube::Object>& owners,
                                         const rapidjson::Value& pod, kube::Object& lone);

// The PodGroup for `in.pod`. InvalidArgument naming the owner and field when
// the owner's spec cannot give a minMember (a replica spec without
// replicas, a RayJob whose RayCluster is not made yet), for an Event.
Result<GroupPlan> PlanPodGroup(const GroupInputs& in);

// The name of a PodGroup made for one pod alone (a bare pod, a Deployment's
// pod): "pg-<pod>-<pod uid>". The binder writes it on a bare pod at its
// bind, before the pod grouper makes the group.
std::string PodOwnGroupName(std::string_view pod, std::string_view uid);

// Whether `pod_group` is the group the binder named for pod `pod` (uid
// `uid`) at its bind: a pod with no controller owner whose group is its
// PodOwnGroupName. Such a group is the pod grouper's to make, and until it
// exists the pod counts as a job of its own.
bool IsOwnGroupNamedAtBind(std::string_view pod_group, std::string_view pod, std::string_view uid,
                           bool has_controller_owner);

// "kubeflow.org/v1" -> "kubeflow.org"; "v1" -> "".
std::string ApiGroupOf(std::string_view api_version);

}  // namespace vtenant::scheduler

// Which top owner a pod's PodGroup stands for, and the sub-group gang it
// gives the pod. KAI's pod grouper groups a pod by the top of its owner
// chain, but passes over some top owners to the owner below them; the
// syncer and the host's grouper pass over the same ones, and read a top
// owner's gang through the same call.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string_view>

#include "base/status.h"
#include "kai/sub_group_gang.h"

namespace vtenant::kai {

// Whether the top owner of `api_version` and `kind` is passed over, the
// pod being grouped as the owner below it, or, when it has none below it,
// as a pod of its own (KAI's skip-top-owner grouper); any version of:
//   - Kubeflow Trainer's TrainJob (trainer.kubeflow.org), which runs as a
//     JobSet it owns: its pods are the JobSet's (kai/jobset_gang.h).
//   - An Argo Workflow (argoproj.io), which owns its steps' pods: each step
//     is a job of its own, not one gang of the whole workflow.
//   - A Run:ai workload (run.ai: TrainingWorkload, InteractiveWorkload,
//     DistributedWorkload, InferenceWorkload, DistributedInferenceWorkload)
//     and NVIDIA Dynamo's DynamoGraphDeployment (nvidia.com), which run as
//     the workloads they create.
//   - A KubeRay RayJob or RayService (kai/ray_gang.h) when no RayCluster is
//     below it in the chain (`ray_cluster_below` false): the pod is the
//     RayJob's submitter, grouped as its Job. KAI gives such a pod the
//     cluster's group, where, labelled with no worker group, it belongs to
//     no sub-group and is never scheduled.
bool PassesOverTopOwner(std::string_view api_version, std::string_view kind,
                        bool ray_cluster_below);

// The sub-group gang pod `pod` joins when its top owner `workload` (of
// `api_version` and `kind`) has pods with roles: a JobSet
// (kai/jobset_gang.h), a LeaderWorkerSet (kai/leader_worker_set_gang.h), a
// PyTorchJob (kai/pytorch_job_gang.h), or a KubeRay workload counted on
// `ray_cluster`, the RayCluster among the pod's owners (kai/ray_gang.h);
// nullopt for any other kind. The syncer and the host's grouper both ask
// here, so they give a workload the same gang. InvalidArgument, naming the
// workload, when its reader refuses, or for a KubeRay workload with no
// `ray_cluster`.
Result<std::optional<SubGroupGang>> ReadRolesGang(std::string_view api_version,
                                                  std::string_view kind,
                                                  const rapidjson::Value& workload,
                                                  const rapidjson::Value* ray_cluster,
                                                  const rapidjson::Value& pod);

}  // namespace vtenant::kai

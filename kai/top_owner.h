// Which top owner a pod's PodGroup stands for. KAI's pod grouper groups a
// pod by the top of its owner chain, but passes over some top owners to
// the owner below them; the syncer and the host's grouper pass over the
// same ones.
#pragma once

#include <string_view>

namespace vtenant::kai {

// Whether the top owner of `api_version` and `kind` is passed over, the
// pod being grouped as the owner below it:
//   - Kubeflow Trainer's TrainJob (trainer.kubeflow.org, any version),
//     which runs as a JobSet it owns: its pods are the JobSet's
//     (kai/jobset_gang.h), as in KAI.
//   - A KubeRay RayJob or RayService (kai/ray_gang.h) when no RayCluster is
//     below it in the chain (`ray_cluster_below` false): the pod is the
//     RayJob's submitter, grouped as its Job. KAI gives such a pod the
//     cluster's group, where, labelled with no worker group, it belongs to
//     no sub-group and is never scheduled.
// Callers pass over only when an owner is below the top one.
bool PassesOverTopOwner(std::string_view api_version, std::string_view kind,
                        bool ray_cluster_below);

}  // namespace vtenant::kai

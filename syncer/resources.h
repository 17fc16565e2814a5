// Resource types the syncer reads that kube/resource.h does not list (and
// five it does, under the same namespace).
#pragma once

#include "kube/resource.h"

namespace vtenant::syncer::resources {

// kube/resource.h's, named here too: the syncer's code says resources::kX
// for these as for the ones below (core types stay kube::resources::kX).
using kube::resources::kEndpointSlices;
using kube::resources::kPersistentVolumeClaims;
using kube::resources::kReplicaSets;
using kube::resources::kResourceClaims;
using kube::resources::kStatefulSets;
inline const kube::ResourceType kCronJobs{"batch", "v1", "cronjobs", "CronJob", true};
// JobSet's CRD, which a virtual cluster has only when the team installs it.
inline const kube::ResourceType kJobSets{"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet", true};
// LeaderWorkerSet's CRD, likewise the team's to install.
inline const kube::ResourceType kLeaderWorkerSets{"leaderworkerset.x-k8s.io", "v1",
                                                  "leaderworkersets", "LeaderWorkerSet", true};
inline const kube::ResourceType kResourceClaimTemplates{
    "resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", true};
// Kubeflow's training jobs are kai/kubeflow_job.h's list.

}  // namespace vtenant::syncer::resources

// Resource types the syncer reads that kube/resource.h does not list.
#pragma once

#include "kube/resource.h"

namespace vtenant::syncer::resources {

inline const kube::ResourceType kPersistentVolumeClaims{"", "v1", "persistentvolumeclaims",
                                                        "PersistentVolumeClaim", true};
inline const kube::ResourceType kReplicaSets{"apps", "v1", "replicasets", "ReplicaSet", true};
inline const kube::ResourceType kStatefulSets{"apps", "v1", "statefulsets", "StatefulSet", true};
inline const kube::ResourceType kCronJobs{"batch", "v1", "cronjobs", "CronJob", true};
// JobSet's CRD, which a virtual cluster has only when the team installs it.
inline const kube::ResourceType kJobSets{"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet", true};
inline const kube::ResourceType kEndpointSlices{"discovery.k8s.io", "v1", "endpointslices",
                                                "EndpointSlice", true};
inline const kube::ResourceType kPyTorchJobs{"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob",
                                             true};

}  // namespace vtenant::syncer::resources

// The gang KAI's pod grouper makes of a Kubeflow PyTorchJob: its minMember
// (kai/kubeflow_job.h) split between a sub-group for the master and one
// for the workers, so that a job that may start with fewer pods than it
// has (minAvailable, elastic minReplicas) starts with its master, not with
// workers alone.
//
//   - "master": minMember the Master role's replicas, when it has any.
//   - "worker": minMember the job's minMember less the master's (not below
//     0: a leaf of 0 holds nothing back), when the job has a Worker role.
//   - Segments, when the pod's kai.scheduler/segment-size annotation (else
//     the Worker template's) gives a size s: "worker" becomes a parent of
//     "worker-<k>" leaves of s workers each (the last holds the rest),
//     needing all of them (minSubGroup); worker i is in "worker-<i/s>".
//     The segments whose first worker is within the workers' minimum each
//     need their pods; the rest (elastic workers) need none. Each segment
//     shares a domain by the segment-topology annotations of the pod, else
//     the Worker template (kai::SegmentTopology).
//   - A pod joins the sub-group its training.kubeflow.org/replica-type
//     label ("master", "worker") and, segmented, replica-index name.
#pragma once

#include <rapidjson/document.h>

#include "base/status.h"
#include "kai/sub_group_gang.h"

namespace vtenant::kai {

// The gang of PyTorchJob `job`'s pod `pod`, by the rules above:
// min_member set, clamped to at least 1. InvalidArgument, naming the job,
// for what KubeflowJobMinMember refuses, a segment size that is not a
// whole number of at least 1, more than 10,000 segments, or a worker pod
// without a whole replica-index label when segmented.
Result<SubGroupGang> ReadPyTorchJobGang(const rapidjson::Value& job, const rapidjson::Value& pod);

}  // namespace vtenant::kai

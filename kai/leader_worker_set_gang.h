// The gang KAI's pod grouper makes of a LeaderWorkerSet
// (leaderworkerset.x-k8s.io): one PodGroup per replica group (a leader and
// its workers), so that a multi-node inference replica starts whole or
// not at all, and its pods are never split between a running leader and
// pending workers.
//
//   - The group: the workload's PodGroup name with "-group-<i>" appended,
//     <i> the pod's leaderworkerset.sigs.k8s.io/group-index label (no
//     suffix when the label is absent or not a number, as in KAI).
//   - minMember: spec.leaderWorkerTemplate.size (the pod's own
//     leaderworkerset.sigs.k8s.io/size annotation when it carries one and
//     startupPolicy is LeaderReady). Under startupPolicy LeaderReady the
//     LWS controller makes the workers only once the leader is ready, so
//     while the leader pod is not yet bound the group asks for it alone
//     (minMember 1); LeaderCreated (the default) makes them together.
//   - Sub-groups: "leader" (minMember 1) and "workers" (minMember the size
//     less one, left out when that is 0). The leader is the pod whose
//     leaderworkerset.sigs.k8s.io/worker-index is "0"; every other pod is
//     a worker.
//   - Segments, when spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize
//     (else the kai.scheduler/segment-size annotation of the
//     LeaderWorkerSet, else of its workerTemplate) gives a segment size s
//     (2 to the size): the workers are cut into segments "segment-<k>" of
//     s pods, each a leaf that starts whole. Worker index w is in segment
//     (w-1)/s when s divides the size less one, else w/s (the leader,
//     index 0, always in segment 0). Under subGroupPolicyType LeaderWorker
//     (the default) segment 0 holds the leader too and is a parent of the
//     "leader" and "workers" leaves (minSubGroup 2); under LeaderExcluded
//     (s must divide the size less one) "leader" is a top-level leaf of
//     its own before the segments.
//
// Where KAI's grouper fails, this reader does what the rule means: KAI
// counts the leader twice in a LeaderWorker segment 0 that is also the
// only segment (and once too many in a lone LeaderExcluded segment), so
// that group could never start; here a segment's minMember is the number
// of pods it holds. Under LeaderReady, an unbound leader's group (minMember
// 1) is not segmented, where KAI refuses a segment size above 1 pod.
//
// Each segment shares a domain by the segment-topology annotations of the
// pod, else the workerTemplate (kai::SegmentTopology); the leaves inside
// segment 0 and an excluded leader get none of their own, as in KAI.
#pragma once

#include <rapidjson/document.h>

#include "base/status.h"
#include "kai/sub_group_gang.h"

namespace vtenant::kai {

// The gang of `lws`'s pod `pod` (a leader, or a worker of one of its
// groups), by the rules above: min_member set, name_suffix and
// pod_sub_group filled in. InvalidArgument, naming the LeaderWorkerSet and
// what is wrong, for what KAI's grouper refuses: no positive
// spec.leaderWorkerTemplate.size, an unknown startupPolicy or
// subGroupPolicyType, a worker-index label that is not a whole number of
// at least 0, a segment size that is not a number or is outside 2 to the
// size, more than 10,000 segments, or LeaderExcluded with a segment size
// that does not divide the size less one.
Result<SubGroupGang> ReadLeaderWorkerSetGang(const rapidjson::Value& lws,
                                             const rapidjson::Value& pod);

}  // namespace vtenant::kai

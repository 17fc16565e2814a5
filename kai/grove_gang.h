// The gang KAI's pod grouper makes of a Grove workload (grove.io: a
// PodCliqueSet, formerly PodGangSet, NVIDIA Dynamo's multi-node inference
// shape). Grove's operator writes, beside the pods, a PodGang
// (scheduler.grove.io/v1alpha1) that says how they must start together;
// each pod names it in label grove.io/podgang. The PodGroup is the
// PodGang's, read as KAI's grove grouper reads it:
//
//   - Leaves: one sub-group per entry of spec.podgroups, in order: its
//     `name`, minMember its `minReplicas` (required, above 0), holding the
//     pods its `podReferences` name ({namespace, name}, each in the
//     PodGang's own namespace: a reference elsewhere is refused, so that a
//     PodGang cannot pull another namespace's pods into its gang).
//   - Parents: one per entry of spec.topologyConstraintGroupConfigs that
//     names podgroups (`podGroupNames`), before the leaves: the leaves it
//     names are its children, and it wants all of them (minSubGroup). An
//     entry naming none is passed over, as in KAI. Where KAI counts a name
//     no podgroup has, so that the parent could never start, here
//     minSubGroup counts the children that exist; a podgroup two entries
//     name is the first one's child (KAI gives it to the last, and leaves
//     it counted in both).
//   - minMember: the sum of the leaves' minReplicas.
//   - Topology: the Topology named by the PodGang's annotation
//     grove.io/topology-name, else kai.scheduler/topology. A
//     `topologyConstraint.packConstraint` (`required`, `preferred`) on the
//     PodGang, a config or a podgroup gives that one's levels; levels with
//     no Topology named are refused.
//   - The pod's leaf: the podgroup whose podReferences name it ("" while
//     none does yet).
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string_view>

#include "base/status.h"
#include "kai/sub_group_gang.h"
#include "kai/workload_topology.h"

namespace vtenant::kai {

inline constexpr char kPodGangLabel[] = "grove.io/podgang";
inline constexpr char kPodGangApiVersion[] = "scheduler.grove.io/v1alpha1";
inline constexpr char kGroveTopologyNameAnnotation[] = "grove.io/topology-name";

// Whether a top owner of `api_version` and `kind` is a Grove workload,
// whose pods are grouped by their PodGang: grove.io's PodCliqueSet or
// PodGangSet, any version.
bool IsGroveWorkload(std::string_view api_version, std::string_view kind);

// The gang of PodGang `pod_gang` for its pod named `pod_name`, by the rules
// above: min_member set, pod_sub_group filled in. InvalidArgument, naming
// the PodGang and the field, for what KAI's grouper refuses: a podgroup or
// config without a name, a podgroup without a positive minReplicas or
// without podReferences, a reference without a namespace or name or in
// another namespace, and levels with no Topology named; and for what would
// fail later, where the team would not see why: a podgroup whose name
// cannot be a label value, and a name two entries share.
Result<SubGroupGang> ReadGroveGang(const rapidjson::Value& pod_gang, std::string_view pod_name);

// The PodGroup's spec.topologyConstraint, as KAI's grove grouper fills it:
// the PodGang's packConstraint's levels with the Topology named, each field
// still empty then taken from the kai.scheduler/topology* annotations
// (kai::WorkloadTopology) of the PodGang, then of `top_owner` when given.
// InvalidArgument for levels with no Topology named.
Result<TopologyConstraint> ReadGroveTopology(const rapidjson::Value& pod_gang,
                                             const rapidjson::Value* top_owner = nullptr);

// The priority class KAI's grove grouper names: label priorityClassName of
// the PodGang, else of `top_owner` when given, else the PodGang's
// spec.priorityClassName when set; nullopt when none does (the caller's
// default applies). A view into the objects.
std::optional<std::string_view> GrovePriorityClass(const rapidjson::Value& pod_gang,
                                                   const rapidjson::Value* top_owner = nullptr);

}  // namespace vtenant::kai

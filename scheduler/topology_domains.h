// KAI's Topologies as the scheduler gives them to the core.
//
// The core knows a topology level only as a node label key whose value
// names a node's domain. KAI's domains are paths (a rack within its block,
// kai::DomainPath), and a node that lacks a level's label is in no domain
// of that Topology. So each level of each Topology becomes a label of its
// own, "<topology>:<nodeLabel>", on the nodes that have every level's
// label, valued by the domain path; and a PodGroup's levels, nodeLabels or
// aliases of the Topology it names, are resolved to those keys.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "kai/topology.h"
#include "kai/workload_topology.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

using Topologies = std::map<std::string, kai::Topology, std::less<>>;

// The label key the core reads for level `node_label` of `topology`.
std::string DomainLabelKey(std::string_view topology, std::string_view node_label);

// Appends to `labels` (a node's) one DomainLabelKey label per level of each
// of `topologies` the node is part of.
void AddDomainLabels(const Topologies& topologies, sched::LabelPairs* labels);

// Resolves a topologyConstraint, the PodGroup's own or one of its
// sub-groups', into the levels the core reads. A constraint that names no
// Topology keeps its levels as node label keys, as written. One that names
// a Topology has each level, a nodeLabel or an alias of it, become its
// DomainLabelKey. Returns why the group cannot be scheduled, in KAI's
// words, with `who` ("workload", "sub-group <name>") as what set the
// constraint: the Topology does not exist, it has no such level, or the
// preferred level is wider than the required one (KAI looks for it only
// within the required domain); "" when it can.
std::string ResolveTopology(const Topologies& topologies, const kai::TopologyConstraint& constraint,
                            std::string_view who, sched::GroupSpec::Levels* levels);

}  // namespace vtenant::scheduler

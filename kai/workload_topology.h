// A workload's topology constraint as KAI's pod grouper reads it: the
// annotations on the workload (its top owner, or a bare pod) that become
// its PodGroup's spec.topologyConstraint:
//   kai.scheduler/topology                      topology
//   kai.scheduler/topology-required-placement   requiredTopologyLevel
//   kai.scheduler/topology-preferred-placement  preferredTopologyLevel
// The host's pod grouper and the syncer's gangs both read it here.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace vtenant::kai {

struct TopologyConstraint {
  std::string topology;
  std::string required_level;
  std::string preferred_level;
  bool empty() const {
    return topology.empty() && required_level.empty() && preferred_level.empty();
  }
  bool operator==(const TopologyConstraint&) const = default;
};

// The constraint `workload`'s annotations ask for ("" for each absent).
TopologyConstraint WorkloadTopology(const rapidjson::Value& workload);

// A sub-group's constraint as KAI's groupers give one: the three values
// when a Topology and at least one level are named, else none. (KAI's
// scheduler reads no sub-group constraint without a Topology.)
TopologyConstraint SubGroupTopology(TopologyConstraint named);

// The constraint of a sub-group whose pods come from `pod_template` (a
// JobSet's replicatedJob template, a Ray head or worker group's): the
// template's kai.scheduler/topology and topology-*-placement annotations,
// by SubGroupTopology. Null: none.
TopologyConstraint TemplateTopology(const rapidjson::Value* pod_template);

// The constraint KAI gives each segment of a workload's workers (a
// LeaderWorkerSet's, a PyTorchJob's), as its groupers read it for `pod`:
// kai.scheduler/topology from the pod, else `worker_template`, else
// `workload`; kai.scheduler/segment-topology-*-placement from the pod, else
// `worker_template`; by SubGroupTopology. An empty value counts as absent.
// `worker_template` may be null.
TopologyConstraint SegmentTopology(const rapidjson::Value& pod,
                                   const rapidjson::Value* worker_template,
                                   const rapidjson::Value& workload);

// `constraint` as spec.topologyConstraint: an object of the fields that are
// set, in the order above, allocated with `a`; null when none is.
rapidjson::Value TopologyConstraintValue(const TopologyConstraint& constraint,
                                         rapidjson::Document::AllocatorType& a);

}  // namespace vtenant::kai

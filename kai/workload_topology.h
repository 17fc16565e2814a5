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

// `constraint` as spec.topologyConstraint: an object of the fields that are
// set, in the order above, allocated with `a`; null when none is.
rapidjson::Value TopologyConstraintValue(const TopologyConstraint& constraint,
                                         rapidjson::Document::AllocatorType& a);

}  // namespace vtenant::kai

// ReplicaExclusions: the required pod anti-affinity terms of a pod that
// hold it apart from pods like itself, as the core's exclusions
// (sched::Exclusion): a Deployment's or a StatefulSet's replicas, one a node
// or one a zone.
//
// A term of spec.affinity.podAntiAffinity.requiredDuringScheduling-
// IgnoredDuringExecution is one when its labelSelector (with the pod's
// values of its matchLabelKeys and mismatchLabelKeys merged in, as the API
// server does) matches the pod's own labels and its namespaces hold the
// pod's: its `namespaces`, else the pod's own; `namespaceSelector: {}` all.
// Pods carrying the same term, in the namespaces it names, share its key;
// the core keeps two of them out of one domain of its topologyKey.
//
// Not read: terms whose selector matches other pods only (a pod kept away
// from another workload), and terms with a non-empty namespaceSelector;
// required pod affinity; the preferred terms.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kube/object.h"

namespace vtenant::scheduler {

// (key, topologyKey) of each such term of `pod`, in term order.
std::vector<std::pair<std::string, std::string>> ReplicaExclusions(const rapidjson::Value& pod);

}  // namespace vtenant::scheduler

// Pods by the address they hold, for servers that answer by who asks: a
// DNS server every pod of a node can reach answers only the pods it is for
// (dns::AskerCheck), and the address a query came from is all it knows of
// the asker.
#pragma once

#include <string>
#include <vector>

#include "kube/informer.h"
#include "kube/object.h"

namespace vtenant::kube {

// The name of the index PodAddressesOf makes (Cache::AddIndexer).
inline constexpr char kPodAddressIndex[] = "pod-address";

// The addresses `pod` holds: status.podIPs (status.podIP when that list is
// absent). None for a pod that has finished (phase Succeeded or Failed):
// the node may already have given its address to a new pod, and an old
// entry must not speak for the new one.
std::vector<std::string> PodAddressesOf(const Object& pod);

// The pods of `cache` that hold `address`, by the index above; none when
// the cache has no such index.
std::vector<ObjectPtr> PodsAt(const Cache& cache, std::string_view address);

}  // namespace vtenant::kube

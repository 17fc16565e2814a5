// Where one pod can go: the fit test of a node, the choice of GPU devices on
// it, and the walk over nodes that a placement policy prescribes.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "scheduler-core/cluster_state.h"
#include "scheduler-core/options.h"

namespace vtenant::sched {

// Why a node cannot take a pod, in the order the checks run.
enum class FitFailure : uint8_t {
  kFits,
  kUnschedulable,
  kNodeSelector,
  kTaint,
  kOutsideDomain,
  kPodCount,
  kCpu,
  kMemory,
  kWholeGpus,
  kSharedGpu,
  kGpuMemoryTooLarge,
  kMig,
};
inline constexpr int kNumFitFailures = 12;

// "insufficient cpu", "no GPU device with the requested portion free", ...
std::string_view FitFailureText(FitFailure failure);

// Restricts a search to part of the cluster: one topology domain (nodes
// whose `domain_of` entry equals `domain`) and/or one node.
struct NodeFilter {
  const std::vector<uint32_t>* domain_of = nullptr;
  uint32_t domain = 0;
  NodeId only = kNone;

  bool Accepts(NodeId n) const {
    if (only != kNone && n != only) return false;
    return domain_of == nullptr || (*domain_of)[n] == domain;
  }
};

// How well a started or empty device suits a GPU-sharing pod under binpack,
// best first. A device "complements" a portion p when, after taking the pod,
// pods of that same portion could still fill it as full as they would fill
// an empty device (free mod p <= 1000 mod p): two halves, four quarters,
// three 330m thirds, a half and two quarters. Mixing sizes freely strands
// remainders nobody asks for (500m + 330m leaves 170m).
enum class DeviceFit : uint8_t { kComplements, kEmpty, kMixes };

// The class of a device with `used` milli-GPU taken for a pod of `portion`
// (which must fit: used + portion <= 1000).
DeviceFit ClassifyDevice(Milli used, Milli portion);

class Placer {
 public:
  Placer(const ClusterState& state, PlacementPolicy policy, uint64_t seed);

  // Whether `pod` fits `node` as things stand; when it does and `out` is
  // given, the devices the policy picks on that node.
  FitFailure Check(PodId pod, NodeId node, Allocation* out) const;

  // The node (and devices) the policy picks among those the filter accepts.
  // False when no node fits.
  bool Find(PodId pod, const NodeFilter& filter, Allocation* out);

  // Per failure reason, how many nodes fail the pod for it (kFits counts
  // nodes that would take it). Walks every node: for diagnosis only.
  std::array<int32_t, kNumFitFailures> Diagnose(PodId pod) const;

  // GPU the pod needs in total on one node, at least: the free-GPU index
  // lets a search skip every node with less.
  Milli MinimumGpuOnNode(PodId pod) const;

 private:
  // Check, taking only devices of class `worst` or better for a shared pod.
  FitFailure CheckUpTo(PodId pod, NodeId node, DeviceFit worst, Allocation* out) const;
  bool ChooseDevices(const PodRequest& r, const Node& node, DeviceFit worst, Allocation* out) const;
  // Binpack for a pod sharing one device: complementing devices anywhere,
  // then an empty device on the fullest node, then any device that fits.
  bool FindSharedBinpack(PodId pod, Milli need, const NodeFilter& filter, Allocation* out) const;
  uint64_t NextRandom();

  const ClusterState* state_;
  const Snapshot* snapshot_;
  PlacementPolicy policy_;
  uint64_t rng_;
  int32_t largest_device_mib_ = 0;
};

// Taint and selector rules, exposed for diagnosis and tests.
bool MatchesSelector(const Node& node, const std::vector<Label>& selector);
bool MatchesAffinity(const Node& node, const std::vector<LabelIn>& affinity);
bool ToleratesTaints(const Node& node, const std::vector<Toleration>& tolerations);

}  // namespace vtenant::sched

// Where one pod can go: the fit test of a node, the choice of GPU devices on
// it, and the walk over nodes that a placement policy prescribes.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "scheduler-core/cluster_state.h"
#include "scheduler-core/options.h"
#include "scheduler-core/placement_rule.h"

namespace vtenant::sched {

// Why a node cannot take a pod: the first check Placer::CheckUpTo finds
// failing. The checks run in this order, except that kGpuMemoryTooLarge
// (the node's devices are too small for a gpu-memory request) is found
// before the devices are chosen. A pending reason lists equal counts in
// this order. A gang's topology domain is not a failure of the node: it
// restricts the search (NodeFilter), and the job's reason says so.
enum class FitFailure : uint8_t {
  kFits,
  kUnschedulable,
  kNodeSelector,  // the node selector or the required node affinity
  kTaint,
  kPodAffinity,              // its required pod affinity (pod_terms.h)
  kPodAntiAffinity,          // its required pod anti-affinity
  kExistingPodAntiAffinity,  // a placed pod's required anti-affinity
  kTopologySpread,           // one of its topology spread constraints
  kHostPort,                 // a host port it binds is taken (node_extras.h)
  kOtherResource,            // too little of another resource left
  kVolumeCount,              // a CSI driver attaches no more volumes there
  kDeviceClaims,             // too few free devices for its resource claims
  kTogether,                 // not where the pods it must be with are (PodExtras::together)
  kPodCount,
  kCpu,
  kMemory,
  kWholeGpus,
  kSharedGpu,
  kGpuMemoryTooLarge,
  kMig,
};
inline constexpr int kNumFitFailures = 20;

// "insufficient cpu", "no GPU device with the requested portion free", ...
std::string_view FitFailureText(FitFailure failure);

// Answers where a pod fits on `state` and lets the policy's rule choose.
// Reads the state as it is at each call; not thread-safe (the rule keeps
// memos, and reading the state's indexes brings them up to date).
class Placer {
 public:
  // Places by the rule of options.policy (MakePlacementRule). `state` must
  // outlive the placer; of `options` the rule keeps what it needs.
  Placer(const ClusterState& state, const Options& options);
  ~Placer();

  // Whether `pod` fits `node` as things stand; when it does and `out` is
  // given, the devices the policy picks on that node.
  FitFailure Check(PodId pod, NodeId node, Allocation* out) const {
    return CheckUpTo(pod, node, DeviceFit::kMixes, out);
  }
  // Check, taking only devices of class `worst` or better for a shared pod.
  FitFailure CheckUpTo(PodId pod, NodeId node, DeviceFit worst, Allocation* out) const;
  // The pod-count, CPU and memory part of Check: kFits, or the first of
  // kPodCount, kCpu, kMemory the node fails. It reads one small record where
  // the whole check reads the pod, the node and its devices, so the
  // placement rules ask it first: on a busy cluster most nodes with GPU
  // room left have no CPU left.
  FitFailure CheckBasics(const PodRequest& r, NodeId node) const {
    const NodeFree& free = state_->Free(node);
    if (free.pods < 1) return FitFailure::kPodCount;
    if (free.cpu_milli < r.cpu_milli) return FitFailure::kCpu;
    if (free.memory_bytes < r.memory_bytes) return FitFailure::kMemory;
    return FitFailure::kFits;
  }

  // The node (and devices) the policy picks among those the filter accepts
  // and the pod's required inter-pod terms allow, into `out`; with
  // preferred terms, among those they score highest that the pod fits.
  // False when no node fits. Not const: a rule may learn from the search
  // (memos, a random generator's state).
  bool Find(PodId pod, const NodeFilter& filter, Allocation* out);

  // Per failure reason, how many nodes fail the pod for it (kFits counts
  // nodes that would take it). Walks every node: for diagnosis only.
  std::array<int32_t, kNumFitFailures> Diagnose(PodId pod) const;

  // GPU the pod needs in total on one node, at least: the free-GPU index
  // lets a search skip every node with less.
  Milli MinimumGpuOnNode(PodId pod) const;

  const ClusterState& state() const { return *state_; }
  const Snapshot& snapshot() const { return *snapshot_; }

 private:
  // The devices of `node` the rule picks for `r`, taking `portion` of each
  // (a shared pod's portion on this node; ignored for whole GPUs); false
  // when too few devices have room.
  // How many of `a`'s devices on `node` are idle: the reservation pods a
  // shared pod placed there would bring.
  int32_t NewReservations(const NodeBrief& node, const Allocation& a) const;
  // Find for a pod with preferred inter-pod terms: the rule picks among the
  // nodes of the highest preference first, then the next, and so on.
  bool FindPreferred(PodId pod, const NodeFilter& filter, Allocation* out);
  // With `shared_only`, a shared pod takes only devices others share
  // already (no new reservation pod).
  bool ChooseDevices(const PodRequest& r, NodeId node_id, const NodeBrief& node, Milli portion,
                     DeviceFit worst, Allocation* out, bool shared_only = false) const;

  const ClusterState* state_;
  const Snapshot* snapshot_;
  int32_t largest_device_mib_ = 0;
  std::unique_ptr<PlacementRule> rule_;
  bool binpack_devices_ = false;  // rule_->OrdersDevicesAsBinpack()
  bool shuffles_ = false;         // rule_->ShufflesDevices(), a property of the rule
};

// Taint and selector rules, exposed for diagnosis and tests.
bool MatchesSelector(const Node& node, const std::vector<Label>& selector);
bool MatchesAffinity(const Node& node, const std::vector<LabelIn>& affinity);
bool ToleratesTaints(const Node& node, const std::vector<Toleration>& tolerations);

}  // namespace vtenant::sched

// Node scoring, the placement extension point: how a policy picks, among
// the nodes and devices a pod fits, where it goes. One class per policy;
// placement_rules.cc registers them by PlacementPolicy, so a new policy is
// one new file and one line there.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "scheduler-core/cluster_state.h"
#include "scheduler-core/options.h"

namespace vtenant::sched {

class Placer;

// One topology domain: the nodes whose `domain_of` entry (Session::DomainsOf
// of a level) equals `domain`.
struct DomainPin {
  const std::vector<uint32_t>* domain_of = nullptr;
  uint32_t domain = 0;
};

// Restricts a search to the nodes in every one of `pins`: the domains a job
// and the sub-groups of the pod being placed were given (topology_placement.h);
// with `state`, also to those the inter-pod terms, other resources and
// host ports let `pod` have (ClusterState::Admits; Placer::Find sets them). No pins, no state:
// every node.
struct NodeFilter {
  std::span<const DomainPin> pins;
  const ClusterState* state = nullptr;
  PodId pod = kNone;

  bool Accepts(NodeId n) const {
    for (const DomainPin& pin : pins)
      if ((*pin.domain_of)[n] != pin.domain) return false;
    return state == nullptr || state->Admits(pod, n);
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

// Binpack's device preference (BinpackRule::DeviceKey): complementing
// devices, then empty ones, then any; fullest first, then by index. False
// when the device's class is worse than `worst`. `slack` is
// kMilliPerGpu % portion, which a caller keying many devices for one
// portion works out once.
inline bool BinpackDeviceKey(Milli used, Milli portion, Milli slack, int index, DeviceFit worst,
                             int64_t* key) {
  const Milli free = kMilliPerGpu - used;
  // ClassifyDevice, with the slack given.
  const DeviceFit fit = used == 0                 ? DeviceFit::kEmpty
                        : free % portion <= slack ? DeviceFit::kComplements
                                                  : DeviceFit::kMixes;
  if (fit > worst) return false;
  *key = (int64_t{static_cast<uint8_t>(fit)} << 32) + free * 64 + index;
  return true;
}

class PlacementRule {
 public:
  virtual ~PlacementRule() = default;

  // Where `pod` goes among the nodes `filter` accepts; false when it fits
  // none. `placer` answers the fit questions (Check, CheckUpTo, indexes).
  virtual bool Find(const Placer& placer, PodId pod, const NodeFilter& filter, Allocation* out) = 0;

  // The preference of device `index` of a node, with `used` milli-GPU
  // taken, for a GPU-sharing pod of `portion` (smaller keys first); false
  // leaves the device out. `worst` is the worst class Placer::CheckUpTo
  // was asked to allow. By default: index order.
  virtual bool DeviceKey(Milli used, Milli portion, int index, DeviceFit worst, int64_t* key) const;
  // True when DeviceKey is BinpackDeviceKey: Placer then computes the key
  // itself, with no call per device.
  virtual bool OrdersDevicesAsBinpack() const { return false; }

  // Whether the devices a node offers are taken in random order (random-fit;
  // asked once, when the Placer is built), and the generator state the
  // shuffle starts from (asked at each pick).
  virtual bool ShufflesDevices() const { return false; }
  virtual uint64_t ShuffleSeed() const { return 0; }
};

// The rule of `options.policy`, on `state`.
std::unique_ptr<PlacementRule> MakePlacementRule(const ClusterState& state, const Options& options);

}  // namespace vtenant::sched

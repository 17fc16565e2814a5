// The placement rules KAI users know, and two baselines: binpack, spread,
// best-fit and random-fit (see PlacementPolicy for what each does).
#pragma once

#include "scheduler-core/placement_rule.h"

namespace vtenant::sched {

class BinpackRule : public PlacementRule {
 public:
  bool Find(const Placer& placer, PodId pod, const NodeFilter& filter, Allocation* out) override;
  // Complementing devices, then empty ones, then any; fullest first.
  bool DeviceKey(Milli used, Milli portion, int index, DeviceFit worst,
                 int64_t* key) const override;
  bool OrdersDevicesAsBinpack() const override { return true; }

  // Binpack for a pod sharing one device: complementing devices anywhere,
  // then an empty device on the fullest node, then any device that fits.
  static bool FindShared(const Placer& placer, PodId pod, Milli need, const NodeFilter& filter,
                         Allocation* out);
};

class SpreadRule : public PlacementRule {
 public:
  bool Find(const Placer& placer, PodId pod, const NodeFilter& filter, Allocation* out) override;
  // Emptiest device first.
  bool DeviceKey(Milli used, Milli portion, int index, DeviceFit worst,
                 int64_t* key) const override;
};

class BestFitRule : public PlacementRule {
 public:
  bool Find(const Placer& placer, PodId pod, const NodeFilter& filter, Allocation* out) override;
};

class RandomFitRule : public PlacementRule {
 public:
  explicit RandomFitRule(uint64_t seed) : rng_(seed) {}
  bool Find(const Placer& placer, PodId pod, const NodeFilter& filter, Allocation* out) override;
  bool ShufflesDevices() const override { return true; }
  uint64_t ShuffleSeed() const override { return rng_; }

 private:
  uint64_t rng_;
};

}  // namespace vtenant::sched

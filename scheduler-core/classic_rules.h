// The placement rules KAI users know, and two baselines: binpack, spread,
// best-fit and random-fit (see PlacementPolicy for what each does).
#pragma once

#include <array>
#include <cstddef>

#include "scheduler-core/placement_rule.h"
#include "scheduler-core/room_index.h"

namespace vtenant::sched {

class BinpackRule final : public PlacementRule {
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

 private:
  // On a busy cluster most nodes with GPU room have no CPU, memory or pod
  // slot left, and the pods of a job (and the jobs of one shape) ask the
  // same walk over and over. A memo says, for one request's CPU and memory
  // and one starting room, that every node before `from` in the free-GPU
  // index failed Placer::CheckBasics as of change-log entry `log_seen`.
  // Nodes off the change log since then hold and are keyed as they were,
  // so only the logged ones need a look before the walk starts at `from`;
  // the walk then visits the same nodes that pass CheckBasics, in the same
  // order, as one from the start. (Trial lifts are not logged, but no
  // placement is searched while one is in force.)
  struct BasicsMemo {
    bool valid = false;
    int64_t cpu_milli = 0;
    int64_t memory_bytes = 0;
    Milli need = 0;
    RoomIndex::Entry from{};  // the first that passed; key INT64_MAX if none did
    size_t log_seen = 0;
  };
  // A memo behind by more changes than this is dropped: its look at the
  // log would cost about what the walk saves.
  static constexpr size_t kMaxLogLook = 256;
  std::array<BasicsMemo, 4> memos_;
  size_t next_memo_ = 0;
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

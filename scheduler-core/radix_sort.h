// Stable sorting of ids by a 64-bit key, least significant digit first:
// allocation ranks every pending job of a busy cycle (100k) by priority and
// age, which fit one packed integer, and comparison sorts spend most of
// their time on branches a counting pass does not take.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vtenant::sched {

struct KeyedId {
  uint64_t key;
  uint32_t id;
};

// Sorts `items` by key, keeping the order of equal keys. Only the lowest
// `bits` bits of the keys may be set (at most 64); a pass is made per 11
// bits, and a few hundred items or fewer are merge-sorted instead.
// `scratch` is reused memory.
void RadixSortByKey(std::span<KeyedId> items, int bits, std::vector<KeyedId>* scratch);

}  // namespace vtenant::sched

#include "scheduler-core/radix_sort.h"

#include <algorithm>
#include <array>
#include <utility>

namespace vtenant::sched {

void RadixSortByKey(std::span<KeyedId> items, int bits, std::vector<KeyedId>* scratch) {
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  if (items.size() < 2 || bits <= 0) return;
  // Below a few hundred items clearing the counts costs more than comparing.
  if (items.size() < kBuckets / 8) {
    std::stable_sort(items.begin(), items.end(),
                     [](const KeyedId& a, const KeyedId& b) { return a.key < b.key; });
    return;
  }
  scratch->resize(items.size());
  std::span<KeyedId> from = items, to = *scratch;
  std::array<uint32_t, kBuckets> count;
  for (int shift = 0; shift < bits; shift += kDigitBits) {
    count.fill(0);
    for (const KeyedId& e : from) ++count[(e.key >> shift) & (kBuckets - 1)];
    uint32_t sum = 0;
    for (uint32_t& c : count) sum += std::exchange(c, sum);
    for (const KeyedId& e : from) to[count[(e.key >> shift) & (kBuckets - 1)]++] = e;
    std::swap(from, to);
  }
  // After an odd number of passes the result sits in the scratch memory.
  if (from.data() != items.data()) std::copy(from.begin(), from.end(), items.begin());
}

}  // namespace vtenant::sched

// RadixSortByKey against std::stable_sort, for key widths that take one,
// several and the most passes, with many equal keys.
#include "scheduler-core/radix_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace vtenant::sched {
namespace {

TEST(RadixSortTest, SortsLikeAStableSort) {
  std::mt19937_64 rng(7);
  for (int bits : {1, 5, 11, 12, 22, 33, 64}) {
    for (size_t size : {0, 1, 2, 3, 100, 5000}) {
      std::vector<KeyedId> items(size);
      const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      for (uint32_t i = 0; i < size; ++i) {
        // Half the keys from a handful of values: runs of equal keys.
        const uint64_t key = rng() % 2 == 0 ? rng() % 4 : rng();
        items[i] = {key & mask, i};
      }
      std::vector<KeyedId> expected = items;
      std::stable_sort(expected.begin(), expected.end(),
                       [](const KeyedId& a, const KeyedId& b) { return a.key < b.key; });
      std::vector<KeyedId> scratch;
      RadixSortByKey(items, bits, &scratch);
      ASSERT_EQ(items.size(), expected.size());
      for (size_t i = 0; i < size; ++i) {
        ASSERT_EQ(items[i].key, expected[i].key) << "bits " << bits << " size " << size;
        ASSERT_EQ(items[i].id, expected[i].id) << "bits " << bits << " size " << size;
      }
    }
  }
}

}  // namespace
}  // namespace vtenant::sched

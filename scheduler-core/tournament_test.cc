// Tournament against a plain scan that keeps its first best (and a count
// of the winner's equals), over random updates of keys with many ties and
// entries coming and going.
#include "scheduler-core/tournament.h"

#include <gtest/gtest.h>

#include <random>

namespace vtenant::sched {
namespace {

constexpr int kAbsent = -1;

// What allocation's scan over sibling queues picks: the first present
// entry, replaced only by one strictly before it.
uint32_t Scan(const std::vector<int>& keys) {
  uint32_t best = Tournament::kNone;
  for (uint32_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == kAbsent) continue;
    if (best == Tournament::kNone || keys[i] < keys[best]) best = i;
  }
  return best;
}

// Whether another present entry has the winner's key.
bool Ties(const std::vector<int>& keys, uint32_t winner) {
  if (winner == Tournament::kNone) return false;
  for (uint32_t i = 0; i < keys.size(); ++i)
    if (i != winner && keys[i] == keys[winner]) return true;
  return false;
}

TEST(TournamentTest, PicksWhatAScanPicksThroughRandomUpdates) {
  for (uint32_t size : {1u, 2u, 3u, 5u, 8u, 10u, 17u, 64u}) {
    for (int range : {2, 5, 1000}) {  // small ranges: many ties
      std::mt19937 rng(size * 1000 + range);
      std::vector<int> keys(size, kAbsent);
      Tournament t(size);
      auto before = [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; };
      ASSERT_EQ(t.Winner(), Tournament::kNone);
      for (int step = 0; step < 2000; ++step) {
        const uint32_t i = rng() % size;
        keys[i] = rng() % 4 == 0 ? kAbsent : static_cast<int>(rng() % range);
        t.Update(i, keys[i] != kAbsent, before);
        ASSERT_EQ(t.Winner(), Scan(keys)) << "size " << size << " range " << range;
        ASSERT_EQ(t.WinnerTied(before), Ties(keys, t.Winner()));
      }
    }
  }
}

TEST(TournamentTest, EqualKeysGoToTheLowerIndex) {
  std::vector<int> keys = {7, 3, 3, 5, 3};
  Tournament t(keys.size());
  auto before = [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; };
  for (uint32_t i = 0; i < keys.size(); ++i) t.Update(i, true, before);
  EXPECT_EQ(t.Winner(), 1u);
  EXPECT_TRUE(t.WinnerTied(before));
  t.Update(1, false, before);
  EXPECT_EQ(t.Winner(), 2u);
  keys[4] = 1;
  t.Update(4, true, before);
  EXPECT_EQ(t.Winner(), 4u);
  EXPECT_FALSE(t.WinnerTied(before));
}

TEST(TournamentTest, EmptyHasNoWinner) {
  Tournament t(0);
  EXPECT_EQ(t.Winner(), Tournament::kNone);
}

}  // namespace
}  // namespace vtenant::sched

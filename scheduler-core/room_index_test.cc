// RoomIndex against a std::set of the same pairs, over random inserts,
// erases and moves: the same entries, walked in the same order both ways,
// and From finds the same first entry as lower_bound.
#include "scheduler-core/room_index.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace vtenant::sched {
namespace {

using Entries = std::vector<RoomIndex::Entry>;

Entries Upwards(const RoomIndex& index, RoomIndex::Key from) {
  Entries out;
  for (auto it = index.From(from); it != index.end(); ++it) out.push_back(*it);
  return out;
}

Entries Downwards(const RoomIndex& index) {
  Entries out;
  for (auto it = index.rbegin(); it != index.rend(); ++it) out.push_back({it->first, it->second});
  return out;
}

TEST(RoomIndexTest, WalksAsASetOfPairsWould) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    // Keys spread over several bitmap words, some shared by many ids.
    const RoomIndex::Key max_key = seed == 1 ? 3 : 300;
    RoomIndex index(max_key, 40);
    std::set<RoomIndex::Entry> model;
    std::vector<RoomIndex::Key> key_of(40, -1);
    for (int step = 0; step < 2000; ++step) {
      const uint32_t id = rng() % key_of.size();
      const RoomIndex::Key key = rng() % (max_key + 1);
      if (key_of[id] < 0) {
        index.Insert(key, id);
        model.insert({key, id});
        key_of[id] = key;
      } else if (rng() % 3 == 0) {
        index.Erase(key_of[id], id);
        model.erase({key_of[id], id});
        key_of[id] = -1;
      } else {
        index.Move(key_of[id], key, id);
        model.erase({key_of[id], id});
        model.insert({key, id});
        key_of[id] = key;
      }
      ASSERT_EQ(index.size(), model.size());
      ASSERT_EQ(index.empty(), model.empty());
      const RoomIndex::Key from = static_cast<RoomIndex::Key>(rng() % (max_key + 3)) - 1;
      ASSERT_EQ(Upwards(index, from), Entries(model.lower_bound({from, 0}), model.end()));
      ASSERT_EQ(Downwards(index), Entries(model.rbegin(), model.rend()));
    }
  }
}

// The bottom level is not zeroed when built: an index built over memory a
// full one just gave back must still walk as its own entries say.
TEST(RoomIndexTest, BuiltOverUsedMemoryHoldsOnlyItsOwnEntries) {
  for (int round = 0; round < 3; ++round) {
    std::set<RoomIndex::Entry> model;
    {
      RoomIndex full(200, 300);
      for (RoomIndex::Key key = 0; key <= 200; ++key)
        for (uint32_t id = 0; id < 300; id += 1 + round) full.Insert(key, id);
    }
    RoomIndex index(200, 300);
    EXPECT_TRUE(index.begin() == index.end());
    EXPECT_TRUE(index.rbegin() == index.rend());
    std::mt19937 rng(round);
    for (int step = 0; step < 500; ++step) {
      const RoomIndex::Entry e{static_cast<RoomIndex::Key>(rng() % 201), rng() % 300};
      if (model.count(e)) {
        index.Erase(e.first, e.second);
        model.erase(e);
      } else {
        index.Insert(e.first, e.second);
        model.insert(e);
      }
    }
    EXPECT_EQ(Upwards(index, 0), Entries(model.begin(), model.end()));
    EXPECT_EQ(Downwards(index), Entries(model.rbegin(), model.rend()));
    EXPECT_EQ(Upwards(index, 150), Entries(model.lower_bound({150, 0}), model.end()));
  }
}

TEST(RoomIndexTest, EmptyIndexHasNothingToWalk) {
  RoomIndex index(100, 8);
  EXPECT_TRUE(index.begin() == index.end());
  EXPECT_TRUE(index.rbegin() == index.rend());
  index.Insert(64, 7);
  index.Erase(64, 7);
  EXPECT_TRUE(index.empty());
  EXPECT_TRUE(index.From(0) == index.end());
  EXPECT_TRUE(index.rbegin() == index.rend());
  EXPECT_TRUE(index.From(101) == index.end());
}

}  // namespace
}  // namespace vtenant::sched

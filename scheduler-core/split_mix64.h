// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014): a small generator whose sequence is the same on every
// platform and standard library, so that a seeded random choice (RandomFit,
// a shuffled device order) makes the same decisions everywhere and the
// simulator's recorded tables stay reproducible.
#pragma once

#include <cstdint>

namespace vtenant::sched {

// Advances `state` and returns the next number of its sequence.
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace vtenant::sched

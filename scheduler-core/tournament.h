// A tournament tree over a fixed number of entries: which present entry is
// first, kept up to date as entries change one at a time. Allocation picks
// the sibling queue to serve after every job, and only one sibling's key
// changes between two picks; a scan compares every sibling again, the tree
// compares one pair per level on the changed entry's path.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace vtenant::sched {

class Tournament {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // `size` entries, none present.
  explicit Tournament(uint32_t size = 0)
      : leaves_(std::bit_ceil(size == 0 ? 1u : size)), nodes_(2 * leaves_, kNone) {}

  // Entry i is now present (or absent) with a new key. `before(a, b)`
  // says whether entry a goes before entry b; it must be a strict weak
  // order on the present entries' current keys. The other entries' keys
  // must not have changed since they were last updated.
  template <typename Before>
  void Update(uint32_t i, bool present, const Before& before) {
    uint32_t k = leaves_ + i;
    nodes_[k] = present ? i : kNone;
    for (k /= 2; k >= 1; k /= 2) {
      const uint32_t left = nodes_[2 * k], right = nodes_[2 * k + 1];
      // The left half holds the lower indices: it keeps ties.
      nodes_[k] = left == kNone || (right != kNone && before(right, left)) ? right : left;
    }
  }

  // The present entry that no other goes before, the lowest index among
  // equals (what a scan in index order keeping its first best finds);
  // kNone when none is present.
  uint32_t Winner() const { return nodes_[1]; }

  // True when another present entry is equal to the winner (neither goes
  // before the other), with the order Update was given. Compares against
  // the winners of the subtrees beside the winner's path: one per level.
  template <typename Before>
  bool WinnerTied(const Before& before) const {
    const uint32_t w = nodes_[1];
    if (w == kNone) return false;
    for (uint32_t k = leaves_ + w; k > 1; k /= 2) {
      const uint32_t other = nodes_[k ^ 1];
      if (other != kNone && !before(w, other)) return true;
    }
    return false;
  }

 private:
  uint32_t leaves_;              // a power of two, at least the size
  std::vector<uint32_t> nodes_;  // [1]: the root; [leaves_ + i]: entry i
};

}  // namespace vtenant::sched

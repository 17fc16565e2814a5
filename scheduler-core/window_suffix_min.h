// The least of a list's values from each position to the end of a window
// (its first `window` entries), kept up to date as entries are erased and
// changed: the single-victim search stops once nobody left in its window
// holds less than its best, and the list changes after every eviction.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "scheduler-core/model.h"

namespace vtenant::sched {

class WindowSuffixMin {
 public:
  explicit WindowSuffixMin(size_t window) : window_(window) {}

  // Recomputes everything from `values`.
  void Reset(std::span<const Milli> values);
  // `values` (as it is now) lost the entry that was at index i. Costs a
  // shift of min(i, size - i) entries plus the distance the change reaches.
  void Erased(std::span<const Milli> values, size_t i);
  // values[i] changed.
  void Changed(std::span<const Milli> values, size_t i);

  // least()[i] is the least of values[i .. min(size, window)); size
  // min(size, window).
  std::span<const Milli> least() const { return std::span(buffer_).subspan(head_); }

 private:
  std::span<Milli> Least() { return std::span(buffer_).subspan(head_); }
  // Redoes least[from], least[from - 1], ... from the entry above each,
  // stopping at the first that does not change (those below it cannot).
  void RepairDownFrom(std::span<const Milli> values, size_t from);

  size_t window_;
  // least() is buffer_ from head_ on: an entry erased in the front half is
  // closed up by moving the entries before it up by one (the callers erase
  // mostly near the front), not the rest of the window down.
  std::vector<Milli> buffer_;
  size_t head_ = 0;
};

}  // namespace vtenant::sched

#include "scheduler-core/window_suffix_min.h"

#include <algorithm>
#include <limits>

namespace vtenant::sched {

void WindowSuffixMin::Reset(std::span<const Milli> values) {
  least_.resize(std::min(values.size(), window_));
  Milli least = std::numeric_limits<Milli>::max();
  for (size_t i = least_.size(); i-- > 0;) least_[i] = least = std::min(least, values[i]);
}

void WindowSuffixMin::Erased(std::span<const Milli> values, size_t i) {
  // An entry past the window leaves the window as it was.
  if (i >= least_.size()) return;
  // Every suffix from i on lost the erased entry: shift them down.
  least_.erase(least_.begin() + static_cast<std::ptrdiff_t>(i));
  if (values.size() >= window_) {
    // The entry after the window moved into its last place and joins every
    // suffix; suffix minimums fall going down, so stop at the first that is
    // already no more than it.
    const Milli entered = values[window_ - 1];
    least_.push_back(entered);
    for (size_t j = window_ - 1; j-- > i;) {
      if (least_[j] <= entered) break;
      least_[j] = entered;
    }
  }
  if (i > 0) RepairDownFrom(values, i - 1);
}

void WindowSuffixMin::Changed(std::span<const Milli> values, size_t i) {
  if (i < least_.size()) RepairDownFrom(values, i);
}

void WindowSuffixMin::RepairDownFrom(std::span<const Milli> values, size_t from) {
  for (size_t j = from + 1; j-- > 0;) {
    const Milli above = j + 1 < least_.size() ? least_[j + 1] : std::numeric_limits<Milli>::max();
    const Milli now = std::min(values[j], above);
    if (now == least_[j]) return;
    least_[j] = now;
  }
}

}  // namespace vtenant::sched

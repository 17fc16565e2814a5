#include "scheduler-core/window_suffix_min.h"

#include <algorithm>
#include <limits>

namespace vtenant::sched {

void WindowSuffixMin::Reset(std::span<const Milli> values) {
  head_ = 0;
  buffer_.resize(std::min(values.size(), window_));
  Milli least = std::numeric_limits<Milli>::max();
  for (size_t i = buffer_.size(); i-- > 0;) buffer_[i] = least = std::min(least, values[i]);
}

void WindowSuffixMin::Erased(std::span<const Milli> values, size_t i) {
  const size_t size = buffer_.size() - head_;
  // An entry past the window leaves the window as it was.
  if (i >= size) return;
  // Every suffix from i on lost the erased entry: shift them down (or, for
  // an entry in the front half, the ones before it up; they are repaired
  // below in any case).
  if (i < size - i) {
    std::move_backward(buffer_.begin() + head_, buffer_.begin() + head_ + i,
                       buffer_.begin() + head_ + i + 1);
    ++head_;
    if (head_ >= window_) {  // keep the buffer within twice the window
      buffer_.erase(buffer_.begin(), buffer_.begin() + head_);
      head_ = 0;
    }
  } else {
    buffer_.erase(buffer_.begin() + head_ + i);
  }
  if (values.size() >= window_) {
    // The entry after the window moved into its last place and joins every
    // suffix; suffix minimums fall going down, so stop at the first that is
    // already no more than it.
    const Milli entered = values[window_ - 1];
    buffer_.push_back(entered);
    const std::span<Milli> least = Least();
    for (size_t j = window_ - 1; j-- > i;) {
      if (least[j] <= entered) break;
      least[j] = entered;
    }
  }
  if (i > 0) RepairDownFrom(values, i - 1);
}

void WindowSuffixMin::Changed(std::span<const Milli> values, size_t i) {
  if (i < buffer_.size() - head_) RepairDownFrom(values, i);
}

void WindowSuffixMin::RepairDownFrom(std::span<const Milli> values, size_t from) {
  const std::span<Milli> least = Least();
  for (size_t j = from + 1; j-- > 0;) {
    const Milli above = j + 1 < least.size() ? least[j + 1] : std::numeric_limits<Milli>::max();
    const Milli now = std::min(values[j], above);
    if (now == least[j]) return;
    least[j] = now;
  }
}

}  // namespace vtenant::sched

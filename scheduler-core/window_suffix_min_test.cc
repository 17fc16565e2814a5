// WindowSuffixMin against the minimums worked out from scratch, over
// random erasures and changes, in windows smaller and larger than the list.
#include "scheduler-core/window_suffix_min.h"

#include <gtest/gtest.h>

#include <random>

namespace vtenant::sched {
namespace {

std::vector<Milli> FromScratch(const std::vector<Milli>& values, size_t window) {
  std::vector<Milli> least(std::min(values.size(), window));
  for (size_t i = 0; i < least.size(); ++i)
    least[i] = *std::min_element(values.begin() + i, values.begin() + least.size());
  return least;
}

std::vector<Milli> Least(const WindowSuffixMin& m) { return {m.least().begin(), m.least().end()}; }

TEST(WindowSuffixMinTest, FollowsErasuresAndChanges) {
  for (size_t window : {1, 3, 8, 40}) {
    std::mt19937 rng(window);
    std::vector<Milli> values(30);
    for (Milli& v : values) v = 250 * (1 + rng() % 8);
    WindowSuffixMin m(window);
    m.Reset(values);
    ASSERT_EQ(Least(m), FromScratch(values, window));
    while (!values.empty()) {
      const size_t i = rng() % values.size();
      if (rng() % 3 == 0) {
        values[i] = 250 * (1 + rng() % 8);
        m.Changed(values, i);
      } else {
        values.erase(values.begin() + static_cast<std::ptrdiff_t>(i));
        m.Erased(values, i);
      }
      ASSERT_EQ(Least(m), FromScratch(values, window)) << "window " << window;
    }
  }
}

TEST(WindowSuffixMinTest, AnEntryEnteringTheWindowJoinsEverySuffix) {
  std::vector<Milli> values = {500, 1000, 2000, 250};
  WindowSuffixMin m(3);
  m.Reset(values);
  EXPECT_EQ(Least(m), (std::vector<Milli>{500, 1000, 2000}));
  values.erase(values.begin());  // 250 enters the window
  m.Erased(values, 0);
  EXPECT_EQ(Least(m), (std::vector<Milli>{250, 250, 250}));
}

}  // namespace
}  // namespace vtenant::sched

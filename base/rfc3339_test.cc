#include "base/rfc3339.h"

#include <gtest/gtest.h>

namespace vtenant {
namespace {

TEST(Rfc3339Test, ParseReadsWhatFormatWrites) {
  const auto t = std::chrono::system_clock::from_time_t(1796000000);
  std::optional<std::chrono::system_clock::time_point> parsed = ParseRfc3339(FormatRfc3339(t));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, t);
  parsed = ParseRfc3339(FormatRfc3339Micro(t + std::chrono::microseconds(250)));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, t + std::chrono::microseconds(250));
  parsed = ParseRfc3339("2026-11-29T18:36:04.5Z");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->time_since_epoch() % std::chrono::seconds(1), std::chrono::milliseconds(500));
}

TEST(Rfc3339Test, ParseRefusesOtherForms) {
  EXPECT_FALSE(ParseRfc3339("").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-11-29").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-11-29T18:36:04+01:00").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-11-29T18:36:04.Z").has_value());
}

}  // namespace
}  // namespace vtenant

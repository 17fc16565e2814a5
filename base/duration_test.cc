#include "base/duration.h"

#include <gtest/gtest.h>

namespace vtenant {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

// One row per form Go's time.ParseDuration takes, with the value it gives.
TEST(ParseDurationTest, TakesWhatGoTakes) {
  const struct {
    const char* text;
    nanoseconds want;
  } cases[] = {
      {"0", nanoseconds(0)},
      {"-0", nanoseconds(0)},
      {"5s", seconds(5)},
      {"+5s", seconds(5)},
      {"-5s", seconds(-5)},
      {"5.s", seconds(5)},
      {".5s", milliseconds(500)},
      {"1.004s", milliseconds(1004)},
      {"100.00100s", milliseconds(100001)},
      {"10ns", nanoseconds(10)},
      {"11us", microseconds(11)},
      {"12\xC2\xB5s", microseconds(12)},  // µs, the micro sign
      {"12\xCE\xBCs", microseconds(12)},  // μs, the Greek letter
      {"13ms", milliseconds(13)},
      {"15m", minutes(15)},
      {"16h", hours(16)},
      {"1.5h", minutes(90)},
      {"3h30m", minutes(210)},
      {"10.5s4m", seconds(250) + milliseconds(500)},
      {"-2m3.4s", -(seconds(123) + milliseconds(400))},
      {"1h2m3s4ms5us6ns",
       hours(1) + minutes(2) + seconds(3) + milliseconds(4) + microseconds(5) + nanoseconds(6)},
      {"0.830103483285477580700h", minutes(49) + nanoseconds(48'372'539'827)},
      {"9223372036854775807ns", nanoseconds(INT64_MAX)},
      {"9223372036854775.807us", nanoseconds(INT64_MAX)},
      {"-9223372036854775808ns", nanoseconds(INT64_MIN)},
  };
  for (const auto& c : cases) {
    Result<nanoseconds> d = ParseDuration(c.text);
    ASSERT_TRUE(d.ok()) << c.text << ": " << d.status().ToString();
    EXPECT_EQ(d->count(), c.want.count()) << c.text;
  }
}

TEST(ParseDurationTest, RefusesTheRestQuotingIt) {
  for (const char* text :
       {"", "3", "-", "s", ".", "-.", ".s", "+.s", "5 minutes", "1y", "1d", "1h-5m", "5s "}) {
    Result<nanoseconds> d = ParseDuration(text);
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(d.status().message().find(std::string("duration \"") + text + "\" is not like"),
              std::string::npos)
        << d.status().ToString();
  }
  for (const char* text : {"9223372036854775808ns", "9223372036854775.808us",
                           "99999999999999999999s", "9223372036854775807h", "2562048h"}) {
    Result<nanoseconds> d = ParseDuration(text);
    EXPECT_NE(d.status().message().find("is too long"), std::string::npos) << text;
  }
}

TEST(ParseDurationTest, DaysOnlyWhereAskedFor) {
  EXPECT_FALSE(ParseDuration("7d").ok());
  Result<nanoseconds> week = ParseDuration("7d", DurationUnits::kWithDays);
  ASSERT_TRUE(week.ok()) << week.status().ToString();
  EXPECT_EQ(*week, hours(7 * 24));
  EXPECT_NE(ParseDuration("1x", DurationUnits::kWithDays).status().message().find("or 7d"),
            std::string::npos);
}

TEST(ParseDurationTest, CeilSecondsNeverRoundsAMinimumAway) {
  EXPECT_EQ(CeilSeconds(milliseconds(500)), 1);
  EXPECT_EQ(CeilSeconds(seconds(90)), 90);
  EXPECT_EQ(CeilSeconds(nanoseconds(0)), 0);
}

}  // namespace
}  // namespace vtenant

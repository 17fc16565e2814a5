#include "scheduler-core/annotations.h"

#include <gtest/gtest.h>

namespace vtenant::sched {
namespace {

struct MilliCase {
  const char* text;
  int64_t milli;
};

TEST(ParseMilliTest, DecimalsBecomeExactMilliUnits) {
  const MilliCase cases[] = {{"0.33", 330},  {"1", 1000},     {"0.5", 500},    {"-1", -1000},
                             {"2.25", 2250}, {".1", 100},     {"0.3334", 334}, {"0.3335", 334},
                             {"10", 10000},  {"0.3333", 334}, {"0.335", 335},  {"1e-3", 1},
                             {"0.0005", 1},  {"-0.0005", -1}};
  for (const MilliCase& c : cases) {
    Result<int64_t> got = ParseMilli(c.text, "x");
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status().ToString();
    EXPECT_EQ(*got, c.milli) << c.text;
  }
}

TEST(ParseMilliTest, RejectsWhatIsNotANumber) {
  for (const char* text : {"", "-", "abc", "1.2.3", "1e", "0,5", "1m"}) {
    Result<int64_t> got = ParseMilli(text, "quota");
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_NE(got.status().message().find("quota"), std::string::npos);
  }
}

TEST(ParseGpuFractionTest, AcceptsMoreThanZeroUpToOne) {
  EXPECT_EQ(*ParseGpuFraction("0.5"), 500);
  EXPECT_EQ(*ParseGpuFraction("1"), 1000);
  EXPECT_EQ(*ParseGpuFraction("0.001"), 1);
  EXPECT_EQ(*ParseGpuFraction("0.0001"), 1) << "rounded up, never to zero";
  EXPECT_EQ(*ParseGpuFraction("0.3333"), 334) << "as kube::Quantity reads it";
}

TEST(ParseGpuFractionTest, RejectsOutOfRangeWithAReason) {
  for (const char* text : {"1.5", "0", "-0.5", "0.0", "2"}) {
    Result<Milli> got = ParseGpuFraction(text);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(got.status().message().find(std::string("\"") + text + "\""), std::string::npos)
        << got.status().message();
  }
  EXPECT_NE(ParseGpuFraction("1.5").status().message().find("at most 1"), std::string::npos);
}

TEST(ParseGpuMemoryTest, PositiveWholeMiB) {
  EXPECT_EQ(*ParseGpuMemoryMib("4000"), 4000);
  EXPECT_FALSE(ParseGpuMemoryMib("0").ok());
  EXPECT_FALSE(ParseGpuMemoryMib("4000.5").ok());
  EXPECT_FALSE(ParseGpuMemoryMib("-3").ok());
  EXPECT_FALSE(ParseGpuMemoryMib("4Gi").ok());
}

TEST(ParseNumDevicesTest, PositiveAndBounded) {
  EXPECT_EQ(*ParseNumDevices("2"), 2);
  EXPECT_FALSE(ParseNumDevices("0").ok());
  EXPECT_FALSE(ParseNumDevices("65").ok());
}

}  // namespace
}  // namespace vtenant::sched

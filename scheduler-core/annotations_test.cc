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

// KAI's Queue units (GPU devices, CPU millicores, memory megabytes) into
// the model's (milli-GPU, millicores, bytes).
TEST(ParseQueueAmountTest, KaiUnitsIntoModelUnits) {
  EXPECT_EQ(*ParseQueueAmount("0.33", kGpu, "q"), 330);
  EXPECT_EQ(*ParseQueueAmount("0.3333", kGpu, "q"), 334);
  EXPECT_EQ(*ParseQueueAmount("2000", kCpu, "q"), 2000);
  EXPECT_EQ(*ParseQueueAmount("1500.5", kCpu, "q"), 1501);
  EXPECT_EQ(*ParseQueueAmount("1000", kMemory, "q"), 1000LL * 1000 * 1000);
  EXPECT_EQ(*ParseQueueAmount("0.5", kMemory, "q"), 500 * 1000);
  for (Resource r : kAllResources) EXPECT_EQ(*ParseQueueAmount("-1", r, "q"), kUnlimited);
}

TEST(ParseQueueAmountTest, RefusesOtherNegativesAndNonNumbersNamingTheField) {
  for (const char* text : {"-2", "-0.5", "abc", ""}) {
    Result<int64_t> got = ParseQueueAmount(text, kGpu, "spec.quota");
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_NE(got.status().message().find("spec.quota"), std::string::npos)
        << got.status().ToString();
  }
}

TEST(ParseQueueWeightTest, ThousandthsWithMinusOneForTheDefault) {
  EXPECT_EQ(*ParseQueueWeight("2", "w"), 2000);
  EXPECT_EQ(*ParseQueueWeight("0.5", "w"), 500);
  EXPECT_EQ(*ParseQueueWeight("0", "w"), 0);
  EXPECT_EQ(*ParseQueueWeight("-1", "w"), 1000);
  EXPECT_FALSE(ParseQueueWeight("-3", "w").ok());
}

TEST(ParseMinRuntimeSecondsTest, GoDurationsInWholeSecondsRoundedUp) {
  EXPECT_EQ(*ParseMinRuntimeSeconds("1h30m"), 5400);
  EXPECT_EQ(*ParseMinRuntimeSeconds("1.5h"), 5400);
  EXPECT_EQ(*ParseMinRuntimeSeconds("500ms"), 1);
  EXPECT_EQ(*ParseMinRuntimeSeconds("0"), 0);
  EXPECT_NE(ParseMinRuntimeSeconds("-5m").status().message().find("negative"), std::string::npos);
  EXPECT_FALSE(ParseMinRuntimeSeconds("5 minutes").ok());
}

}  // namespace
}  // namespace vtenant::sched

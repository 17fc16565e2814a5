#include "base/decimal.h"

#include <gtest/gtest.h>

namespace vtenant {
namespace {

struct Case {
  const char* text;
  int64_t milli;
};

TEST(ParseDecimalMilliTest, RoundsAwayFromZeroToTheNextMilliLikeKubernetes) {
  const Case cases[] = {
      {"0.3333", 334}, {"0.3330", 333}, {"0.335", 335},   {"1e-3", 1},       {"0.0005", 1},
      {"0.0001", 1},   {"1.5", 1500},   {"-1.5", -1500},  {"-0.0005", -1},   {"-0.3333", -334},
      {"0.33", 330},   {"1", 1000},     {".5", 500},      {"5.", 5000},      {"+2", 2000},
      {"0", 0},        {"-0", 0},       {"0.000", 0},     {"2.5E2", 250000}, {"1e+3", 1000000},
      {"1E-4", 1},     {"000.25", 250}, {"1e-999999", 1}, {"0e99", 0},
  };
  for (const Case& c : cases) {
    Result<int64_t> got = ParseDecimalMilli(c.text, "gpu-fraction");
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status().ToString();
    EXPECT_EQ(*got, c.milli) << c.text;
  }
}

TEST(ParseDecimalMilliTest, RejectsGarbageNamingTheField) {
  for (const char* text : {"", "-", "+", ".", "abc", "1.2.3", "0,5", " 1", "1 ", "1e", "1e+", "e3",
                           "1m", "1Gi", "0x10", "1e3.5", "--1", "½"}) {
    Result<int64_t> got = ParseDecimalMilli(text, "gpu-fraction");
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(got.status().message().find("gpu-fraction \"" + std::string(text) + "\""),
              std::string::npos)
        << got.status().message();
  }
}

TEST(ParseDecimalMilliTest, OutOfRangeIsAnErrorNeverAWrappedValue) {
  EXPECT_EQ(*ParseDecimalMilli("9223372036854775.807", "x"), INT64_MAX);
  EXPECT_EQ(*ParseDecimalMilli("-9223372036854775.807", "x"), -INT64_MAX);
  for (const char* text : {"9223372036854775.808", "1e16", "1e999999999999", "-1e17"}) {
    Result<int64_t> got = ParseDecimalMilli(text, "x");
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_NE(got.status().message().find("too large"), std::string::npos);
  }
}

}  // namespace
}  // namespace vtenant

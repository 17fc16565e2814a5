#include "base/status.h"

#include <gtest/gtest.h>

namespace vtenant {
namespace {

Result<int> ParsePositive(int x) {
  if (x <= 0) return InvalidArgument("must be positive, got " + std::to_string(x));
  return x;
}

Result<int> Doubled(int x) {
  VT_ASSIGN_OR_RETURN(int v, ParsePositive(x));
  return 2 * v;
}

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CarriesCodeAndMessage) {
  Status s = NotFound("configmaps \"x\" not found");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "NotFound: configmaps \"x\" not found");
  EXPECT_EQ(s.WithContext("reading x").message(), "reading x: configmaps \"x\" not found");
}

TEST(ResultTest, ValueOrStatus) {
  Result<int> good = Doubled(4);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 8);
  Result<int> bad = Doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.value_or(7), 7);
}

}  // namespace
}  // namespace vtenant

#include "base/ip_address.h"

#include <gtest/gtest.h>

namespace vtenant {
namespace {

TEST(IpRangeTest, RangesAndAddressesParse) {
  EXPECT_TRUE(IpRange::Parse("10.0.0.0/8")->Contains(*IpAddress::Parse("10.255.0.1")));
  EXPECT_FALSE(IpRange::Parse("10.0.0.0/9")->Contains(*IpAddress::Parse("10.128.0.1")));
  EXPECT_TRUE(IpRange::Parse("10.0.0.0/9")->Contains(*IpAddress::Parse("10.127.0.1")));
  EXPECT_FALSE(IpRange::Parse("10.0.0.0/8")->Contains(*IpAddress::Parse("::a00:1")));
  EXPECT_TRUE(IpRange::Parse("0.0.0.0/0")->Contains(*IpAddress::Parse("8.8.8.8")));
  EXPECT_FALSE(IpRange::Parse("10.0.0.0/33"));
  EXPECT_FALSE(IpRange::Parse("10.0.0.0"));
  EXPECT_FALSE(IpRange::Parse("10.0.0.0/x"));
  EXPECT_FALSE(IpAddress::Parse("10.0.0.256"));
  EXPECT_EQ(IpAddress::Parse("10.96.3.3")->ToString(), "10.96.3.3");
  EXPECT_EQ(IpAddress::Parse("::ffff:10.96.3.3")->ToString(), "10.96.3.3");
  EXPECT_EQ(IpAddress::Parse("fd00:0:0::5")->ToString(), "fd00::5");
}

}  // namespace
}  // namespace vtenant

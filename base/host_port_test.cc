#include "base/host_port.h"

#include <gtest/gtest.h>

namespace vtenant {
namespace {

TEST(HostPortTest, SplitsAtTheLastColonAndDropsAnIpv6LiteralsBrackets) {
  Result<HostPort> v4 = ParseHostPort("127.0.0.1:6443");
  ASSERT_TRUE(v4.ok()) << v4.status().ToString();
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 6443);
  Result<HostPort> v6 = ParseHostPort("[::1]:8081");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 8081);
  EXPECT_EQ(ParseHostPort("localhost:65535")->port, 65535);
  EXPECT_EQ(ParseHostPort(":1")->host, "");
}

TEST(HostPortTest, AnEmptyHostToListenOnIsEveryInterface) {
  EXPECT_EQ(ParseListenAddress(":8081")->host, "0.0.0.0");
  EXPECT_EQ(ParseListenAddress("10.87.0.2:53")->host, "10.87.0.2");
  EXPECT_FALSE(ParseListenAddress("8081").ok());
}

TEST(HostPortTest, EachMistakeIsSaid) {
  const struct {
    std::string_view text;
    std::string says;
  } cases[] = {
      {"nowhere", "\"nowhere\" is not host:port"},
      {"", "\"\" is not host:port"},
      {"host:", "port \"\" must be a whole number from 1 to 65535"},
      {"host:0", "port \"0\" must be"},
      {"host:65536", "port \"65536\" must be"},
      {"host:-1", "port \"-1\" must be"},
      {"host:80x", "port \"80x\" must be"},
      {"host: 80", "port \" 80\" must be"},
      {"[::1]", "port \"1]\" must be"},
  };
  for (const auto& c : cases) {
    Result<HostPort> r = ParseHostPort(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().ToString();
  }
}

}  // namespace
}  // namespace vtenant

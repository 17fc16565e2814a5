#include "kube/rest_config.h"

#include <gtest/gtest.h>

namespace vtenant::kube {
namespace {

TEST(ParseServerUrlTest, HostPortAndTheAuthorityOfAHostHeader) {
  struct Case {
    std::string url, host;
    int port;
    std::string authority;
  };
  for (const Case& c :
       std::vector<Case>{{"https://127.0.0.1:6443", "127.0.0.1", 6443, "127.0.0.1:6443"},
                         {"https://api.example.com/prefix", "api.example.com", 443,
                          "api.example.com:443"},
                         {"https://[::1]:6443/", "::1", 6443, "[::1]:6443"},
                         {"https://[::1]", "::1", 443, "[::1]:443"}}) {
    Result<ServerAddress> address = ParseServerUrl(c.url);
    ASSERT_TRUE(address.ok()) << c.url << ": " << address.status().ToString();
    EXPECT_EQ(address->host, c.host) << c.url;
    EXPECT_EQ(address->port, c.port) << c.url;
    EXPECT_EQ(address->Authority(), c.authority) << c.url;
  }
  for (const char* url : {"http://127.0.0.1:6443", "127.0.0.1:6443", "https://", "https://:6443",
                          "https://h:", "https://h:0", "https://h:65536", "https://h:6x",
                          "https://[::1:6443", "https://[::1]x"}) {
    EXPECT_FALSE(ParseServerUrl(url).ok()) << url;
  }
}

TEST(BearerTokenTest, TheTokenElseTheFileElseNone) {
  EXPECT_EQ(*BearerToken({.bearer_token = "t", .bearer_token_file = "/nonexistent"}), "t");
  EXPECT_EQ(*BearerToken({}), "");
  Result<std::string> missing = BearerToken({.bearer_token_file = "/nonexistent/vtenant/token"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kUnauthorized);
}

}  // namespace
}  // namespace vtenant::kube

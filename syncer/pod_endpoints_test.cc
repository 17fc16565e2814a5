#include "syncer/pod_endpoints.h"

#include <gtest/gtest.h>

namespace vtenant::syncer {
namespace {

TEST(ApiRelayTargetTest, RelaysTheVirtualApiServerOnLoopback) {
  struct Case {
    std::string url, host;
    int port;
  };
  for (const Case& c : std::vector<Case>{{"https://127.0.0.1:40815", "127.0.0.1", 40815},
                                         {"https://127.0.0.1:40815/", "127.0.0.1", 40815},
                                         {"https://127.0.0.1", "127.0.0.1", 443},
                                         {"https://127.1.2.3:6443", "127.1.2.3", 6443},
                                         {"https://[::1]:6443", "::1", 6443},
                                         {"https://[::1]", "::1", 443}}) {
    Result<std::pair<std::string, int>> target = ApiRelayTarget(c.url);
    ASSERT_TRUE(target.ok()) << c.url << ": " << target.status().ToString();
    EXPECT_EQ(target->first, c.host) << c.url;
    EXPECT_EQ(target->second, c.port) << c.url;
  }
}

// The relay is the pods' only way to the machine's loopback: anything but
// a numeric loopback address is refused, so it can never lead elsewhere.
TEST(ApiRelayTargetTest, RefusesWhatIsNotANumericLoopbackAddress) {
  for (const std::string url :
       {"https://10.87.0.2:6443", "https://0.0.0.0:6443", "https://localhost:6443",
        "https://vc-nlp.vtenant-nlp.svc:443", "https://[::]:6443", "https://[::1:6443",
        "https://[::1]x:6443", "http://127.0.0.1:6443", "127.0.0.1:6443",
        "https://127.0.0.1:", "https://127.0.0.1:65536", "https://127.0.0.1:0",
        "https://127.0.0.1:64x", "https://127.0.0.1:123456", "https://:6443", ""}) {
    Result<std::pair<std::string, int>> target = ApiRelayTarget(url);
    EXPECT_FALSE(target.ok()) << url << " → " << (target.ok() ? target->first : "");
  }
}

}  // namespace
}  // namespace vtenant::syncer

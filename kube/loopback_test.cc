// Fixed ports for servers that keep them across restarts: outside the
// range the kernel gives outgoing connections, and never one twice.
#include "kube/loopback.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

namespace vtenant::kube {
namespace {

TEST(FixedPortRangeTest, LiesBelowTheEphemeralRangeAndTheNodePorts) {
  EXPECT_EQ(FixedPortRange("32768\t60999\n"), std::make_pair(20000, 29999));
  EXPECT_EQ(FixedPortRange("25000 60999"), std::make_pair(20000, 24999));
  EXPECT_EQ(FixedPortRange("1024 50000"), std::make_pair(50001, 65535)) << "no room below";
  EXPECT_EQ(FixedPortRange("1024 65535"), std::make_pair(0, -1)) << "no room at all";
  EXPECT_EQ(FixedPortRange("nonsense"), std::make_pair(20000, 29999)) << "Linux's default";
}

TEST(PickFreeLoopbackPortTest, NeverFromTheEphemeralRangeAndNeverTwice) {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int first = 0, last = 0;
  ASSERT_TRUE(in >> first >> last);
  std::set<int> seen;
  for (int i = 0; i < 300; ++i) {
    Result<int> port = PickFreeLoopbackPort();
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    if (first > 20000) {
      EXPECT_TRUE(*port < first || *port > last) << *port;
    }
    EXPECT_TRUE(seen.insert(*port).second) << *port << " handed out twice";
  }
}

}  // namespace
}  // namespace vtenant::kube

#include "syncer/names.h"

#include <gtest/gtest.h>

namespace vtenant::syncer {
namespace {

TEST(HostNameTest, ShortNamesJoinWithX) {
  EXPECT_EQ(HostName("trainer-0", "default", "nlp"), "trainer-0-x-default-x-nlp");
}

TEST(HostNameTest, ExactlySixtyThreeCharactersIsKept) {
  std::string name(63 - std::string("-x-ns-x-t").size(), 'a');
  std::string host = HostName(name, "ns", "t");
  EXPECT_EQ(host.size(), 63u);
  EXPECT_EQ(host, name + "-x-ns-x-t");
}

TEST(HostNameTest, LongNamesAreCutAndHashed) {
  std::string name(60, 'a');
  std::string host = HostName(name, "default", "nlp");
  ASSERT_EQ(host.size(), 63u);
  EXPECT_EQ(host.substr(0, 52), std::string(52, 'a'));
  EXPECT_EQ(host[52], '-');
  // SHA-256 of "aaaa...(60)-x-default-x-nlp", first 10 hex digits (Python hashlib).
  EXPECT_EQ(host.substr(53), "89c4c16274");
  // Deterministic, and different names give different hashes.
  EXPECT_EQ(HostName(name, "default", "nlp"), host);
  EXPECT_NE(HostName(name, "default", "cv"), host);
}

TEST(HostNameTest, DotDashLeftByTheCutBecomesDash) {
  // 51 characters then a dot: the cut at 52 ends in "." and the "-" of the
  // hash follows it.
  std::string name = std::string(51, 'b') + ".tail-is-long-enough";
  std::string host = HostName(name, "default", "nlp");
  EXPECT_EQ(host.find(".-"), std::string::npos);
  EXPECT_EQ(host.substr(0, 52), std::string(51, 'b') + "-");
  EXPECT_EQ(host.size(), 62u);
}

TEST(DnsLabelTest, DotsBecomeDashesAndLengthIsCapped) {
  EXPECT_EQ(DnsLabel("web-0"), "web-0");
  EXPECT_EQ(DnsLabel("a.b.c"), "a-b-c");
  std::string long_name = std::string(62, 'x') + "-y";
  EXPECT_EQ(DnsLabel(long_name), std::string(62, 'x'));
}

}  // namespace
}  // namespace vtenant::syncer

#include "dns/dns_message.h"

#include <gtest/gtest.h>

namespace vtenant::dns {
namespace {

// A query as a stub resolver sends it: id, RD set, one question.
std::string Query(uint16_t id, const std::vector<std::string>& labels, uint16_t type,
                  std::string extra_header = "") {
  std::string p;
  p.push_back(static_cast<char>(id >> 8));
  p.push_back(static_cast<char>(id & 0xff));
  p += std::string("\x01\x00", 2);  // RD
  p += extra_header.empty() ? std::string("\x00\x01\x00\x00\x00\x00\x00\x00", 8) : extra_header;
  for (const std::string& l : labels) {
    p.push_back(static_cast<char>(l.size()));
    p += l;
  }
  p.push_back('\0');
  p.push_back(static_cast<char>(type >> 8));
  p.push_back(static_cast<char>(type & 0xff));
  p += std::string("\x00\x01", 2);  // IN
  return p;
}

TEST(DnsMessageTest, ReadsAStubResolversQuery) {
  Result<DnsQuery> q =
      ParseDnsQuery(Query(0x1234, {"Web", "default", "svc", "cluster", "local"}, kDnsTypeA));
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->id, 0x1234);
  EXPECT_EQ(q->opcode, 0);
  EXPECT_TRUE(q->recursion_desired);
  EXPECT_EQ(q->name, "web.default.svc.cluster.local");
  EXPECT_EQ(q->type, kDnsTypeA);
  EXPECT_EQ(q->qclass, kDnsClassIn);
  // An EDNS OPT record in the additional section is allowed and ignored.
  std::string edns =
      Query(7, {"a"}, kDnsTypeAaaa, std::string("\x00\x01\x00\x00\x00\x00\x00\x01", 8));
  edns += std::string("\x00\x00\x29\x04\xd0\x00\x00\x00\x00\x00\x00", 11);
  Result<DnsQuery> with_opt = ParseDnsQuery(edns);
  ASSERT_TRUE(with_opt.ok()) << with_opt.status().ToString();
  EXPECT_EQ(with_opt->name, "a");
  EXPECT_EQ(with_opt->type, kDnsTypeAaaa);
}

TEST(DnsMessageTest, RefusesMalformedPackets) {
  const std::string good = Query(1, {"web", "default"}, kDnsTypeA);
  std::string response = good;
  response[2] = static_cast<char>(response[2] | 0x80);
  std::string long_label = Query(1, {std::string(64, 'a')}, kDnsTypeA);
  std::vector<std::string> many(9, std::string(30, 'b'));  // 9 * 31 + 1 > 255
  std::string pointer = good.substr(0, 12) + std::string("\xc0\x0c\x00\x01\x00\x01", 6);
  std::string label_past_end = good.substr(0, 12) + std::string("\x09web", 4);
  struct Case {
    std::string what, packet;
  };
  for (const Case& c : std::vector<Case>{
           {"empty", ""},
           {"short header", good.substr(0, 11)},
           {"header only", good.substr(0, 12)},
           {"no type and class", good.substr(0, good.size() - 4)},
           {"half a type", good.substr(0, good.size() - 3)},
           {"a response", response},
           {"two questions",
            Query(1, {"a"}, kDnsTypeA, std::string("\x00\x02\x00\x00\x00\x00\x00\x00", 8))},
           {"no question",
            Query(1, {"a"}, kDnsTypeA, std::string("\x00\x00\x00\x00\x00\x00\x00\x00", 8))},
           {"an answer in a query",
            Query(1, {"a"}, kDnsTypeA, std::string("\x00\x01\x00\x01\x00\x00\x00\x00", 8))},
           {"authority in a query",
            Query(1, {"a"}, kDnsTypeA, std::string("\x00\x01\x00\x00\x00\x01\x00\x00", 8))},
           {"a 64-byte label", long_label},
           {"a name over 255 bytes", Query(1, many, kDnsTypeA)},
           {"a compression pointer", pointer},
           {"a label past the end", label_past_end},
           {"no root label", good.substr(0, 12) + std::string("\x03web", 4)},
       }) {
    EXPECT_FALSE(ParseDnsQuery(c.packet).ok()) << c.what;
  }
}

TEST(DnsMessageTest, AnswersWithARecordsOrAnErrorCode) {
  const std::string packet =
      Query(0xbeef, {"web", "default", "svc", "cluster", "local"}, kDnsTypeA);
  Result<DnsQuery> q = ParseDnsQuery(packet);
  ASSERT_TRUE(q.ok());
  const std::string answer = EncodeDnsResponse(*q, DnsRcode::kNoError, {{10, 96, 0, 12}}, 5);
  const std::string question = packet.substr(12);
  const std::string expected =
      std::string("\xbe\xef\x85\x00\x00\x01\x00\x01\x00\x00\x00\x00", 12) + question +
      std::string("\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x05\x00\x04\x0a\x60\x00\x0c", 16);
  EXPECT_EQ(answer, expected);

  // NXDOMAIN: the question, no answer even when addresses are passed.
  const std::string nx = EncodeDnsResponse(*q, DnsRcode::kNameError, {{1, 2, 3, 4}}, 5);
  EXPECT_EQ(nx, std::string("\xbe\xef\x85\x03\x00\x01\x00\x00\x00\x00\x00\x00", 12) + question);

  // What the server answers itself parses as a response, never a query.
  EXPECT_FALSE(ParseDnsQuery(answer).ok());
}

TEST(DnsMessageTest, FormatErrorsEchoTheIdWhenThereIsOne) {
  std::string bad =
      Query(0x0102, {"a"}, kDnsTypeA, std::string("\x00\x02\x00\x00\x00\x00\x00\x00", 8));
  EXPECT_EQ(EncodeDnsFormatError(bad),
            std::string("\x01\x02\x85\x01\x00\x00\x00\x00\x00\x00\x00\x00", 12));
  EXPECT_EQ(EncodeDnsFormatError(bad.substr(0, 11)), "");
  std::string response = bad;
  response[2] = static_cast<char>(response[2] | 0x80);
  EXPECT_EQ(EncodeDnsFormatError(response), "");
}

}  // namespace
}  // namespace vtenant::dns

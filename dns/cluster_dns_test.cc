#include "dns/cluster_dns.h"

#include <gtest/gtest.h>

#include <map>

#include "dns/dns_message.h"

namespace vtenant::dns {
namespace {

std::string Query(const std::string& name, uint16_t type = kDnsTypeA, uint16_t qclass = 1) {
  std::string p("\x00\x2a\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00", 12);
  size_t start = 0;
  while (start < name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    p.push_back(static_cast<char>(dot - start));
    p += name.substr(start, dot - start);
    start = dot + 1;
  }
  p.push_back('\0');
  p.push_back(static_cast<char>(type >> 8));
  p.push_back(static_cast<char>(type & 0xff));
  p.push_back(static_cast<char>(qclass >> 8));
  p.push_back(static_cast<char>(qclass & 0xff));
  return p;
}

struct Reply {
  int rcode = -1;
  int answers = -1;
  std::string address;  // the first A record's, dotted
};

Reply Read(const std::string& packet) {
  Reply r;
  if (packet.size() < 12) return r;
  r.rcode = packet[3] & 0x0f;
  r.answers = (static_cast<uint8_t>(packet[6]) << 8) | static_cast<uint8_t>(packet[7]);
  if (r.answers > 0) {
    const std::string rdata = packet.substr(packet.size() - 4);
    for (int i = 0; i < 4; ++i) {
      r.address += (i ? "." : "") + std::to_string(static_cast<uint8_t>(rdata[i]));
    }
  }
  return r;
}

class ClusterDnsTest : public ::testing::Test {
 protected:
  Reply Ask(const std::string& name, uint16_t type = kDnsTypeA, uint16_t qclass = 1) {
    return Read(AnswerClusterDns(
        Query(name, type, qclass),
        [this](std::string_view ns, std::string_view svc) -> std::optional<std::string> {
          ++lookups_;
          auto it = services_.find(std::string(ns) + "/" + std::string(svc));
          if (it == services_.end()) return std::nullopt;
          return it->second;
        },
        {.kubernetes_address = "10.87.0.2"}));
  }
  std::map<std::string, std::string> services_ = {{"default/web", "10.96.0.42"},
                                                  {"ml/db", "10.96.3.7"},
                                                  {"ml/headless", "None"},
                                                  {"default/kubernetes", "10.96.0.1"}};
  int lookups_ = 0;
};

TEST_F(ClusterDnsTest, ServicesByTheirFullNames) {
  Reply web = Ask("web.default.svc.cluster.local");
  EXPECT_EQ(web.rcode, 0);
  EXPECT_EQ(web.answers, 1);
  EXPECT_EQ(web.address, "10.96.0.42");
  EXPECT_EQ(Ask("DB.ML.svc.Cluster.Local").address, "10.96.3.7");
}

// The virtual `kubernetes` Service shares the host's address; the pods'
// name for it leads to their own API server instead.
TEST_F(ClusterDnsTest, KubernetesIsTheVirtualApiServer) {
  Reply k = Ask("kubernetes.default.svc.cluster.local");
  EXPECT_EQ(k.answers, 1);
  EXPECT_EQ(k.address, "10.87.0.2");
}

// What a resolver tries through its search list before the name itself:
// every name that is not a Service's is NXDOMAIN, and nothing is forwarded.
TEST_F(ClusterDnsTest, EverythingElseIsNxdomain) {
  for (const std::string name :
       {"nothing.default.svc.cluster.local", "web.other.svc.cluster.local",
        "web.default.svc.default.svc.cluster.local", "default.svc.cluster.local",
        "svc.cluster.local", "cluster.local", "web", "web.default", "example.com",
        "web.default.svc.cluster.local.example.com", "a.b.c.svc.cluster.local", ""}) {
    Reply r = Ask(name);
    EXPECT_EQ(r.rcode, 3) << name;
    EXPECT_EQ(r.answers, 0) << name;
  }
}

TEST_F(ClusterDnsTest, OtherTypesAndHeadlessServicesGetAnEmptyAnswer) {
  for (const Reply& r :
       {Ask("web.default.svc.cluster.local", kDnsTypeAaaa), Ask("headless.ml.svc.cluster.local")}) {
    EXPECT_EQ(r.rcode, 0);
    EXPECT_EQ(r.answers, 0);
  }
  EXPECT_EQ(Ask("web.default.svc.cluster.local", kDnsTypeA, /*qclass CHAOS=*/3).rcode, 4);
}

TEST_F(ClusterDnsTest, BrokenPacketsGetAFormatErrorOrNothing) {
  std::string two_questions = Query("web.default.svc.cluster.local");
  two_questions[5] = 2;
  Reply r = Read(AnswerClusterDns(two_questions, nullptr, {}));
  EXPECT_EQ(r.rcode, 1);
  EXPECT_EQ(AnswerClusterDns("\x01\x02\x03", nullptr, {}), "");
  EXPECT_EQ(lookups_, 0);
}

// Only the pods a server is for hear its names: another tenant's pod gets
// REFUSED and no record, without a Service being looked up; an address
// not known yet gets no reply at all, so its resolver asks again.
TEST_F(ClusterDnsTest, OnlyThePodsItIsForAreAnswered) {
  const AskerCheck check = [](std::string_view from) {
    if (from == "10.244.0.5") return Asker::kAnswered;
    if (from == "10.244.0.9") return Asker::kRefused;
    return Asker::kUnknown;
  };
  const ServiceAddressLookup lookup = [this](std::string_view, std::string_view) {
    ++lookups_;
    return std::optional<std::string>("10.96.0.42");
  };
  const std::string query = Query("web.default.svc.cluster.local");
  Reply own = Read(AnswerClusterDnsFor(query, "10.244.0.5", check, lookup, {}));
  EXPECT_EQ(own.rcode, 0);
  EXPECT_EQ(own.address, "10.96.0.42");
  EXPECT_EQ(lookups_, 1);
  Reply other = Read(AnswerClusterDnsFor(query, "10.244.0.9", check, lookup, {}));
  EXPECT_EQ(other.rcode, 5);
  EXPECT_EQ(other.answers, 0);
  EXPECT_EQ(AnswerClusterDnsFor(query, "10.244.0.77", check, lookup, {}), "");
  EXPECT_EQ(lookups_, 1);
}

}  // namespace
}  // namespace vtenant::dns

#include "syncer/names.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <utility>

namespace vtenant::syncer {
namespace {

// RFC 1123 subdomain: lower-case alphanumerics, '-' and '.', every
// dot-separated label starting and ending alphanumeric.
bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty()) return false;
    for (char c : label) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    }
    if (label.front() == '-' || label.back() == '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// The only (name, namespace) a host name in vCluster's form of `tenant`
// can be read back as: split at its one "-x-" before "-x-<tenant>".
std::optional<std::pair<std::string, std::string>> ReadVclusterForm(std::string_view host,
                                                                    std::string_view tenant) {
  const std::string suffix = "-x-" + std::string(tenant);
  if (!host.ends_with(suffix)) return std::nullopt;
  std::string_view joined = host.substr(0, host.size() - suffix.size());
  size_t at = joined.find("-x-");
  if (at == std::string_view::npos || joined.find("-x-", at + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  return std::pair{std::string(joined.substr(0, at)), std::string(joined.substr(at + 3))};
}

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

TEST(HostNameTest, PairsThatShareVclustersFormGetDistinctHashedNames) {
  // vCluster's form reads both as "a-x-b-x-c-x-nlp".
  const std::string first = HostName("a-x-b", "c", "nlp");
  const std::string second = HostName("a", "b-x-c", "nlp");
  EXPECT_NE(first, second);
  // Still recognisable: the joined text, then the hash.
  EXPECT_TRUE(first.starts_with("a-x-b-x-c-x-nlp-")) << first;
  EXPECT_TRUE(second.starts_with("a-x-b-x-c-x-nlp-")) << second;
  EXPECT_EQ(first.size(), std::string("a-x-b-x-c-x-nlp-").size() + 10);
  // A name ending in "-x" or a namespace starting with "x-" overlaps the
  // separator: "a-x" in "b" and "a" in "x-b" are both "a-x-x-b-x-nlp".
  EXPECT_NE(HostName("a-x", "b", "nlp"), HostName("a", "x-b", "nlp"));
  EXPECT_FALSE(HasVclusterForm("a-x", "b"));
  EXPECT_FALSE(HasVclusterForm("a", "x-b"));
  EXPECT_FALSE(HasVclusterForm("a-x-b", "c"));
  EXPECT_TRUE(HasVclusterForm("ax", "xb"));
  EXPECT_TRUE(HasVclusterForm("a-xb", "bx-c"));
}

TEST(HostNameTest, UnambiguousNamesKeepVclustersForm) {
  EXPECT_EQ(HostName("web-x", "default", "nlp"), HostName("web-x", "default", "nlp"));
  EXPECT_EQ(HostName("config.v1", "ml", "nlp"), "config.v1-x-ml-x-nlp");
  EXPECT_EQ(HostName("xx", "x", "nlp"), "xx-x-x-x-nlp");  // one "-x-" in "xx-x-x"
}

TEST(HostNameTest, OwnObjectsNeverTakeATenantObjectsName) {
  EXPECT_EQ(TokenSecretName("trainer-0", "ml", "nlp"), "trainer-0-x-ml-x-nlp.sa-token");
  // The token Secret of pod "p" and a tenant Secret named "p.sa-token".
  EXPECT_NE(TokenSecretName("p", "ml", "nlp"), HostName("p.sa-token", "ml", "nlp"));
  // The old token name was a tenant Secret's: "<pod>-sa-token".
  EXPECT_NE(TokenSecretName("p", "ml", "nlp"), HostName("p-sa-token", "ml", "nlp"));
  const std::string group = WorkloadPodGroupName("etl", "uid-1", "ml", "nlp");
  EXPECT_TRUE(group.starts_with("etl-x-ml-x-nlp.")) << group;
  EXPECT_TRUE(group.ends_with(".pg")) << group;
  EXPECT_NE(group, WorkloadPodGroupName("etl", "uid-2", "ml", "nlp"));
  // The old workload group name was a virtual PodGroup's: "pg-<name>-<uid>".
  EXPECT_NE(group, HostName("pg-etl-uid-1", "ml", "nlp"));
  // An ownerReference's UID is the tenant's to write; the name stays valid.
  EXPECT_TRUE(IsDnsSubdomain(WorkloadPodGroupName("etl", "Not A/UID", "ml", "nlp")));
}

// Random names built to collide under vCluster's form: parts glued with
// "-x-", names ending in "-x", namespaces starting with "x-", dots, and
// lengths on both sides of 63.
class RandomNames {
 public:
  explicit RandomNames(uint32_t seed) : rng_(seed) {}

  std::string Part() {
    static constexpr std::string_view kPieces[] = {"a", "b",  "x",  "ab",  "x-a", "a-x",
                                                   "0", "z9", "xx", "web", "a.b"};
    std::string out(kPieces[Pick(std::size(kPieces))]);
    const size_t extra = Pick(4);
    for (size_t i = 0; i < extra; ++i) {
      out += Pick(3) == 0 ? "-x-" : (Pick(2) == 0 ? "-" : "");
      out += kPieces[Pick(std::size(kPieces))];
    }
    if (Pick(8) == 0) out += std::string(Pick(60), 'q') + "r";  // long ones
    return out;
  }
  // A DNS subdomain (object names may hold dots).
  std::string Name() { return Part(); }
  // A DNS label (namespaces hold no dots), at most 63 characters.
  std::string Namespace() {
    std::string ns = Part();
    for (char& c : ns) {
      if (c == '.') c = '-';
    }
    ns = ns.substr(0, 63);
    while (ns.back() == '-') ns.pop_back();
    return ns;
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  std::mt19937 rng_;
};

TEST(HostNameTest, PropertyOverRandomNames) {
  RandomNames random(20260510);
  // Host name → the (namespace, name) it was made for, and whose own object.
  std::map<std::string, std::string> owner;
  std::set<std::string> pairs;
  auto claim = [&](const std::string& host, const std::string& who) {
    auto [it, fresh] = owner.emplace(host, who);
    EXPECT_TRUE(fresh || it->second == who) << host << " made for " << it->second << " and " << who;
  };
  for (int i = 0; i < 20000; ++i) {
    const std::string name = random.Name();
    const std::string ns = random.Namespace();
    const std::string who = ns + "/" + name;
    pairs.insert(who);
    const std::string host = HostName(name, ns, "nlp");
    ASSERT_TRUE(IsDnsSubdomain(host)) << host;
    ASSERT_LE(host.size(), 63u) << host;
    const std::string vcluster = name + "-x-" + ns + "-x-nlp";
    if (HasVclusterForm(name, ns) && vcluster.size() <= 63) {
      // vCluster's form, and it reads back as exactly this pair.
      EXPECT_EQ(host, vcluster);
      auto read = ReadVclusterForm(host, "nlp");
      ASSERT_TRUE(read) << host;
      EXPECT_EQ(*read, std::pair(name, ns));
    } else {
      EXPECT_NE(host, vcluster);
      EXPECT_EQ(host[host.size() - 11], '-') << host;
    }
    claim(host, who);
    // What the syncer makes for itself takes no tenant object's name.
    claim(TokenSecretName(name, ns, "nlp"), "token of " + who);
    claim(WorkloadPodGroupName(name, "uid-" + name, ns, "nlp"), "group of " + who);
    ASSERT_TRUE(IsDnsSubdomain(TokenSecretName(name, ns, "nlp")));
    ASSERT_TRUE(IsDnsSubdomain(WorkloadPodGroupName(name, "uid", ns, "nlp")));
    // The pair vCluster's form confuses this one with, where there is one.
    if (size_t at = name.find("-x-"); at != std::string::npos) {
      const std::string other_name = name.substr(0, at);
      const std::string other_ns = name.substr(at + 3) + "-x-" + ns;
      if (other_ns.size() <= 63) {
        EXPECT_NE(HostName(other_name, other_ns, "nlp"), host) << who;
      }
    }
  }
  // Three names per pair, none shared.
  EXPECT_EQ(owner.size(), 3 * pairs.size());
  EXPECT_GT(pairs.size(), 5000u);  // the generator does not repeat itself much
}

TEST(DnsLabelTest, DotsBecomeDashesAndLengthIsCapped) {
  EXPECT_EQ(DnsLabel("web-0"), "web-0");
  EXPECT_EQ(DnsLabel("a.b.c"), "a-b-c");
  std::string long_name = std::string(62, 'x') + "-y";
  EXPECT_EQ(DnsLabel(long_name), std::string(62, 'x'));
}

}  // namespace
}  // namespace vtenant::syncer

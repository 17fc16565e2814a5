#include "syncer/endpoint_addresses.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "syncer/names.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::HostPodRef;
using testing::Json;
using testing::NlpConfig;

// A host of two Nodes (one with pod ranges of both families, one without
// any) and two of the tenant's pods, one on each.
HostNetwork TwoNodes() {
  HostNetwork network;
  network.AddNode(Json(R"({"metadata":{"name":"l40s-0"},
      "spec":{"podCIDR":"10.244.0.0/24","podCIDRs":["10.244.0.0/24","fd00:10:244::/64"]},
      "status":{"addresses":[{"type":"InternalIP","address":"192.168.0.2"},
                             {"type":"ExternalIP","address":"203.0.113.2"},
                             {"type":"InternalIP","address":"2001:db8::2"},
                             {"type":"Hostname","address":"l40s-0"}]}})"));
  network.AddNode(Json(R"({"metadata":{"name":"l40s-1"},
      "status":{"addresses":[{"type":"InternalIP","address":"192.168.0.3"}]}})"));
  network.AddTenantPod(Json(R"({"status":{"podIP":"10.244.0.7",
      "podIPs":[{"ip":"10.244.0.7"},{"ip":"fd00:10:244::7"}]}})"));
  network.AddTenantPod(Json(R"({"status":{"podIP":"10.88.1.4"}})"));
  return network;
}

// One row per rule of endpoint_addresses.h.
TEST(HostNetworkTest, Table) {
  const HostNetwork network = TwoNodes();
  struct Row {
    const char* address;
    const char* refused_as;  // a word of why it is refused, or nullptr when kept
  } rows[] = {
      // Outside the cluster as far as the syncer can tell: an external database.
      {"192.168.5.10", nullptr},
      {"2001:db8:5::10", nullptr},
      // The tenant's own pods, in a node's pod range or not.
      {"10.244.0.7", nullptr},
      {"fd00:10:244::7", nullptr},
      {"10.88.1.4", nullptr},
      // Hostile: another tenant's pod in a node's pod range.
      {"10.244.0.8", "pod range of host Node l40s-0"},
      {"fd00:10:244::8", "pod range of host Node l40s-0"},
      // Hostile: the nodes themselves, by any of their addresses and spellings.
      {"192.168.0.2", "host Node l40s-0"},
      {"203.0.113.2", "host Node l40s-0"},
      {"2001:db8:0:0::2", "host Node l40s-0"},
      {"::ffff:192.168.0.3", "host Node l40s-1"},
      // Hostile: special addresses.
      {"169.254.169.254", "link-local"},
      {"::ffff:169.254.169.254", "link-local"},
      {"fe80::1", "link-local"},
      {"fd00:ec2::254", "metadata"},
      {"100.100.100.200", "metadata"},
      {"127.0.0.1", "loopback"},
      {"::1", "loopback"},
      {"0.0.0.0", "unspecified"},
      {"::", "unspecified"},
      {"224.0.0.1", "multicast"},
      {"ff02::1", "multicast"},
      {"255.255.255.255", "reserved"},
      // Not addresses at all.
      {"db.example.com", "not an IP"},
      {"", "not an IP"},
      {"10.0.0.1/32", "not an IP"},
  };
  for (const Row& row : rows) {
    std::optional<std::string> why = network.WhyNot(row.address);
    if (row.refused_as == nullptr) {
      EXPECT_FALSE(why) << row.address << ": " << *why;
    } else {
      ASSERT_TRUE(why) << row.address;
      EXPECT_NE(why->find(row.refused_as), std::string::npos) << row.address << ": " << *why;
    }
  }
}

TEST(HostTargetRefTest, APodRefStaysInsideTheTenant) {
  const SyncerConfig config = NlpConfig();
  kube::Object doc(rapidjson::kObjectType);
  struct Row {
    const char* decision;
    std::string ref;
    std::string host_pod;  // the host pod the host ref names; "" when dropped
  } rows[] = {
      {"a pod of the same namespace is its host pod",
       R"({"kind":"Pod","name":"db-0","uid":"u","resourceVersion":"3"})",
       HostName("db-0", "ml", "nlp")},
      {"a pod of another virtual namespace is the tenant's host pod of it",
       R"({"kind":"Pod","namespace":"data","name":"db-0"})", HostName("db-0", "data", "nlp")},
      {"hostile: another tenant's host namespace still names this tenant's pod",
       R"({"kind":"Pod","namespace":"vtenant-vision","name":"train"})",
       HostName("train", "vtenant-vision", "nlp")},
      {"hostile: anything but a pod is dropped", R"({"kind":"Node","name":"l40s-0"})", ""},
      {"a pod without a name is dropped", R"({"kind":"Pod"})", ""},
  };
  for (const Row& row : rows) {
    std::optional<rapidjson::Value> host =
        HostTargetRef(Json(row.ref), "ml", config, doc.GetAllocator());
    if (row.host_pod.empty()) {
      EXPECT_FALSE(host) << row.decision;
    } else {
      ASSERT_TRUE(host) << row.decision;
      EXPECT_EQ(*host, kube::BuildJson(HostPodRef(row.host_pod)))
          << row.decision << ": " << kube::ToJson(*host);
    }
  }
}

}  // namespace
}  // namespace vtenant::syncer

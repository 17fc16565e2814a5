#include "syncer/cluster_dns_service.h"

#include <gtest/gtest.h>

#include "kube/resource.h"
#include "kube/testing/fake_client.h"
#include "syncer/resources.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;

TEST(ClusterDnsServiceTest, AUdpServiceOnPort53AndASliceAtTheNode) {
  EXPECT_EQ(kube::ToJson(ClusterDnsService("vtenant-nlp")),
            kube::ToJson(Json(R"({"apiVersion":"v1","kind":"Service","metadata":{
                "name":"vtenant-dns","namespace":"vtenant-nlp","labels":{
                "app.kubernetes.io/name":"vtenant-dns","app.kubernetes.io/managed-by":"vtenant-syncer"}},
                "spec":{"type":"ClusterIP","ports":[{"name":"dns","protocol":"UDP","port":53}]}})")));
  const kube::Object slice = ClusterDnsEndpointSlice("vtenant-nlp", "10.87.0.2", 40815);
  EXPECT_EQ(kube::GetString(slice, {"metadata", "labels", "kubernetes.io/service-name"}),
            "vtenant-dns");
  // Not the endpointslice controller's, so the host leaves it alone.
  EXPECT_EQ(
      kube::GetString(slice, {"metadata", "labels", "endpointslice.kubernetes.io/managed-by"}),
      "vtenant-syncer");
  EXPECT_EQ(kube::ToJson(*kube::Find(slice, {"endpoints"})),
            R"([{"addresses":["10.87.0.2"],"conditions":{"ready":true}}])");
  EXPECT_EQ(kube::ToJson(*kube::Find(slice, {"ports"})),
            R"([{"name":"dns","protocol":"UDP","port":40815}])");
  // Neither carries the labels the syncer's host caches select, so no
  // copier takes them for an orphan.
  for (const kube::Object* o : {&slice}) {
    EXPECT_FALSE(kube::Label(*o, "vtenant.io/managed-by").has_value());
  }
  EXPECT_FALSE(kube::Label(ClusterDnsService("x"), "vtenant.io/managed-by").has_value());
}

// A restarted syncer finds both (create says AlreadyExists; it may list,
// not get), points the slice at its port, and answers the Service's IP.
TEST(ClusterDnsServiceTest, EnsureKeepsTheServiceAndMovesTheSlice) {
  kube::FakeClient host;
  kube::Object service = ClusterDnsService("vtenant-nlp");
  service["spec"].AddMember("clusterIP", "10.96.7.53", service.GetAllocator());
  ASSERT_TRUE(host.Create(kube::resources::kServices, "vtenant-nlp", service).ok());
  ASSERT_TRUE(host.Create(resources::kEndpointSlices, "vtenant-nlp",
                          ClusterDnsEndpointSlice("vtenant-nlp", "10.87.0.2", 1111))
                  .ok());
  Result<std::string> ip = EnsureClusterDnsService(host, "vtenant-nlp", "10.87.0.2", 2222);
  ASSERT_TRUE(ip.ok()) << ip.status().ToString();
  EXPECT_EQ(*ip, "10.96.7.53");
  Result<kube::Object> slice = host.Get(resources::kEndpointSlices, "vtenant-nlp", "vtenant-dns");
  ASSERT_TRUE(slice.ok());
  EXPECT_EQ(kube::ToJson(*kube::Find(*slice, {"ports"})),
            R"([{"name":"dns","protocol":"UDP","port":2222}])");
  // Again: nothing to change.
  EXPECT_EQ(*EnsureClusterDnsService(host, "vtenant-nlp", "10.87.0.2", 2222), "10.96.7.53");
}

TEST(ClusterDnsServiceTest, AServiceWithoutAClusterIpIsAnError) {
  kube::FakeClient host;  // allocates no cluster IPs
  Result<std::string> ip = EnsureClusterDnsService(host, "vtenant-nlp", "10.87.0.2", 2222);
  EXPECT_FALSE(ip.ok());
  EXPECT_TRUE(host.Get(kube::resources::kServices, "vtenant-nlp", "vtenant-dns").ok());
  EXPECT_TRUE(host.Get(resources::kEndpointSlices, "vtenant-nlp", "vtenant-dns").ok());
}

}  // namespace
}  // namespace vtenant::syncer

#include "syncer/endpoint_slice_translator.h"

#include <gtest/gtest.h>

#include "syncer/names.h"
#include "syncer/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

kube::Object Slice(const std::string& labels) {
  return Json(R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",
      "metadata":{"name":"db-1","namespace":"ml","uid":"s1","resourceVersion":"9",
                  "labels":{)" +
              labels + R"(}},
      "addressType":"IPv4","ports":[{"name":"pg","port":5432,"protocol":"TCP"}],
      "endpoints":[
        {"addresses":["10.244.0.7"],"conditions":{"ready":true},"nodeName":"l40s-0",
         "targetRef":{"kind":"Pod","name":"db-0","uid":"virtual-uid","resourceVersion":"3"}},
        {"addresses":["192.168.5.10"],"targetRef":{"kind":"Node","name":"edge-1"}},
        {"addresses":["192.168.5.11"]}]})");
}

TEST(EndpointSliceTranslatorTest, OnlyHandWrittenSlicesOfSelectorlessServicesTravel) {
  const kube::Object selectorless =
      Json(R"({"metadata":{"name":"db","namespace":"ml"},"spec":{"ports":[{"port":5432}]}})");
  kube::Object with_selector = Json(R"({"metadata":{"name":"db","namespace":"ml"},
      "spec":{"selector":{"app":"db"}}})");
  EXPECT_TRUE(EndpointSliceTranslator::Wanted(Slice(R"("kubernetes.io/service-name":"db")"),
                                              &selectorless));
  EXPECT_TRUE(EndpointSliceTranslator::Wanted(Slice(R"("kubernetes.io/service-name":"db",
               "endpointslice.kubernetes.io/managed-by":"team.example.com/db-operator")"),
                                              &selectorless));
  // Made by the virtual cluster's controllers: the host makes its own.
  for (const char* manager :
       {"endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io"}) {
    EXPECT_FALSE(
        EndpointSliceTranslator::Wanted(Slice(std::string(R"("kubernetes.io/service-name":"db",
                             "endpointslice.kubernetes.io/managed-by":")") +
                                              manager + "\""),
                                        &selectorless))
        << manager;
  }
  // No Service named, the Service gone, or one with a selector.
  EXPECT_FALSE(EndpointSliceTranslator::Wanted(Slice(R"("app":"db")"), &selectorless));
  EXPECT_FALSE(
      EndpointSliceTranslator::Wanted(Slice(R"("kubernetes.io/service-name":"db")"), nullptr));
  EXPECT_FALSE(EndpointSliceTranslator::Wanted(Slice(R"("kubernetes.io/service-name":"db")"),
                                               &with_selector));
  // The virtual API server's own stays virtual.
  kube::Object api = Slice(R"("kubernetes.io/service-name":"kubernetes")");
  kube::SetString(api, {"metadata"}, "namespace", "default");
  EXPECT_FALSE(EndpointSliceTranslator::Wanted(api, &selectorless));
}

TEST(EndpointSliceTranslatorTest, HostCopyPointsAtTheHostServiceAndHostPods) {
  SyncerConfig config = NlpConfig();
  EndpointSliceTranslator translator(config);
  kube::Object host = translator.ToHost(Slice(R"("kubernetes.io/service-name":"db")"));
  EXPECT_EQ(kube::Name(host), "db-1-x-ml-x-nlp");
  EXPECT_EQ(kube::Namespace(host), "vtenant-nlp");
  EXPECT_EQ(kube::Label(host, kServiceNameLabel), HostName("db", "ml", "nlp"));
  EXPECT_EQ(kube::Label(host, kTenantLabel), "nlp");
  EXPECT_EQ(kube::Label(host, kManagedByLabel), kManagedByValue);
  EXPECT_EQ(kube::Annotation(host, kVirtualUidAnnotation), "s1");
  EXPECT_FALSE(kube::Find(host, {"metadata", "resourceVersion"}));
  EXPECT_EQ(kube::GetString(host, {"addressType"}), "IPv4");
  EXPECT_EQ(kube::GetInt(host["ports"][0], {"port"}), 5432);

  const rapidjson::Value& endpoints = host["endpoints"];
  ASSERT_EQ(endpoints.Size(), 3u);
  EXPECT_EQ(kube::GetString(endpoints[0]["addresses"][0], {}), "10.244.0.7");
  EXPECT_EQ(kube::GetString(endpoints[0], {"nodeName"}), "l40s-0");
  EXPECT_EQ(kube::ToJson(endpoints[0]["targetRef"]),
            R"({"kind":"Pod","namespace":"vtenant-nlp","name":"db-0-x-ml-x-nlp"})");
  EXPECT_FALSE(kube::Find(endpoints[1], {"targetRef"}));
  EXPECT_EQ(kube::GetString(endpoints[1]["addresses"][0], {}), "192.168.5.10");
  EXPECT_EQ(kube::GetString(endpoints[2]["addresses"][0], {}), "192.168.5.11");
}

TEST(EndpointSliceTranslatorTest, UpdateCarriesChangedEndpointsOnly) {
  SyncerConfig config = NlpConfig();
  EndpointSliceTranslator translator(config);
  kube::Object slice = Slice(R"("kubernetes.io/service-name":"db")");
  kube::Object host = translator.ToHost(slice);
  kube::SetString(host, {"metadata"}, "resourceVersion", "41");
  EXPECT_FALSE(translator.Update(slice, host));

  slice["endpoints"][2]["addresses"][0].SetString("192.168.5.12", slice.GetAllocator());
  std::optional<kube::Object> update = translator.Update(slice, host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString((*update)["endpoints"][2]["addresses"][0], {}), "192.168.5.12");
  EXPECT_EQ(kube::ResourceVersion(*update), "41");
  EXPECT_EQ(kube::Label(*update, kServiceNameLabel), HostName("db", "ml", "nlp"));
}

}  // namespace
}  // namespace vtenant::syncer

#include "syncer/endpoint_slice_translator.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "syncer/names.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::HostPodRef;
using testing::Json;
using testing::NlpConfig;
using testing::OneNodeNetwork;
using testing::WithMembers;

// The address of the tenant's one host pod in OneNodeNetwork.
constexpr char kTenantPodIp[] = "10.244.0.7";

// Slice ml/db-1 with `labels`: an endpoint of the tenant's pod, one naming
// a Node, and a bare one.
kube::Object Slice(const kube::JsonObject& labels) {
  kube::Object slice = Json(R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",
      "metadata":{"name":"db-1","namespace":"ml","uid":"s1","resourceVersion":"9","labels":{}},
      "addressType":"IPv4","ports":[{"name":"pg","port":5432,"protocol":"TCP"}],
      "endpoints":[
        {"addresses":["10.244.0.7"],"conditions":{"ready":true},"nodeName":"l40s-0",
         "targetRef":{"kind":"Pod","name":"db-0","uid":"virtual-uid","resourceVersion":"3"}},
        {"addresses":["192.168.5.10"],"targetRef":{"kind":"Node","name":"edge-1"}},
        {"addresses":["192.168.5.11"]}]})");
  slice["metadata"]["labels"] = kube::JsonValue(labels).ToRapidJson(slice.GetAllocator());
  return slice;
}

TEST(EndpointSliceTranslatorTest, OnlyHandWrittenSlicesOfSelectorlessServicesTravel) {
  const kube::Object selectorless =
      Json(R"({"metadata":{"name":"db","namespace":"ml"},"spec":{"ports":[{"port":5432}]}})");
  kube::Object with_selector = Json(R"({"metadata":{"name":"db","namespace":"ml"},
      "spec":{"selector":{"app":"db"}}})");
  EXPECT_TRUE(EndpointSliceTranslator::Wanted(Slice({{"kubernetes.io/service-name", "db"}}),
                                              &selectorless));
  EXPECT_TRUE(EndpointSliceTranslator::Wanted(
      Slice({{"kubernetes.io/service-name", "db"},
             {"endpointslice.kubernetes.io/managed-by", "team.example.com/db-operator"}}),
      &selectorless));
  // Made by the virtual cluster's controllers: the host makes its own.
  for (const char* manager :
       {"endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io"}) {
    EXPECT_FALSE(EndpointSliceTranslator::Wanted(
        Slice({{"kubernetes.io/service-name", "db"},
               {"endpointslice.kubernetes.io/managed-by", manager}}),
        &selectorless))
        << manager;
  }
  // No Service named, the Service gone, or one with a selector.
  EXPECT_FALSE(EndpointSliceTranslator::Wanted(Slice({{"app", "db"}}), &selectorless));
  EXPECT_FALSE(
      EndpointSliceTranslator::Wanted(Slice({{"kubernetes.io/service-name", "db"}}), nullptr));
  EXPECT_FALSE(EndpointSliceTranslator::Wanted(Slice({{"kubernetes.io/service-name", "db"}}),
                                               &with_selector));
  // The virtual API server's own stays virtual.
  kube::Object api = Slice({{"kubernetes.io/service-name", "kubernetes"}});
  kube::SetString(api, {"metadata"}, "namespace", "default");
  EXPECT_FALSE(EndpointSliceTranslator::Wanted(api, &selectorless));
}

TEST(EndpointSliceTranslatorTest, HostCopyPointsAtTheHostServiceAndHostPods) {
  SyncerConfig config = NlpConfig();
  EndpointSliceTranslator translator(config);
  TranslationNotes notes;
  kube::Object host = translator.ToHost(Slice({{"kubernetes.io/service-name", "db"}}),
                                        OneNodeNetwork(kTenantPodIp), &notes);
  EXPECT_EQ(kube::Name(host), "db-1-x-ml-x-nlp");
  EXPECT_EQ(kube::Namespace(host), "vtenant-nlp");
  EXPECT_EQ(kube::Label(host, kServiceNameLabel), HostName("db", "ml", "nlp"));
  EXPECT_EQ(kube::Label(host, kSliceManagedByLabel), kSyncerSliceManager);
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
  EXPECT_FALSE(notes.refusal);
  EXPECT_TRUE(notes.warnings.empty());
  EXPECT_TRUE(notes.dropped.empty());
}

// One row per decision on a hand-written slice beyond the plain copy above.
TEST(EndpointSliceTranslatorTest, Table) {
  SyncerConfig config = NlpConfig();
  EndpointSliceTranslator translator(config);
  struct Row {
    const char* decision;
    kube::JsonObject labels;
    std::string body;        // JSON: addressType, ports, endpoints
    kube::Object host_body;  // the host copy's, exactly; unused when refused
    std::string warned;      // a word of the EndpointAddressNotAllowed warning, or ""
    bool refused;
    DroppedFields dropped;
  } rows[] = {
      {"hostile: the service-name label names the host Service, the managed-by label the "
       "syncer, whatever the tenant wrote",
       {{"kubernetes.io/service-name", "db"},
        {"endpointslice.kubernetes.io/managed-by", "x.k8s.io"}},
       R"({"addressType":"IPv4","endpoints":[{"addresses":["192.168.5.10"]}]})",
       Json(R"({"addressType":"IPv4","endpoints":[{"addresses":["192.168.5.10"]}]})"),
       "",
       false,
       {}},
      {"hostile: a targetRef to another tenant's pod names a pod of this tenant",
       {{"kubernetes.io/service-name", "db"}},
       R"({"addressType":"IPv4","endpoints":[{"addresses":["192.168.5.10"],
          "targetRef":{"kind":"Pod","namespace":"vtenant-vision","name":"x","uid":"u"}}]})",
       kube::BuildJson(kube::JsonObject{
           {"addressType", "IPv4"},
           {"endpoints", kube::JsonArray{kube::JsonObject{
                             {"addresses", kube::JsonArray{"192.168.5.10"}},
                             {"targetRef", HostPodRef(HostName("x", "vtenant-vision", "nlp"))}}}}}),
       "",
       false,
       {}},
      {"hostile: a node's address, another tenant's pod and the metadata service are left off, "
       "and an endpoint left without addresses goes",
       {{"kubernetes.io/service-name", "db"}},
       R"({"addressType":"IPv4","endpoints":[
          {"addresses":["192.168.0.2"],"conditions":{"ready":true}},
          {"addresses":["10.244.0.9"]},{"addresses":["169.254.169.254"]},
          {"addresses":["10.244.0.7"],"conditions":{"ready":true,"serving":true},
           "zone":"a","hints":{"forZones":[{"name":"a"}]}}]})",
       Json(R"({"addressType":"IPv4","endpoints":[{"addresses":["10.244.0.7"],
          "conditions":{"ready":true,"serving":true},"zone":"a",
          "hints":{"forZones":[{"name":"a"}]}}]})"),
       "192.168.0.2 (an address of host Node l40s-0)",
       false,
       {}},
      {"hostile: an FQDN slice is refused",
       {{"kubernetes.io/service-name", "db"}},
       R"({"addressType":"FQDN","endpoints":[{"addresses":["kubernetes.default.svc"]}]})",
       {},
       "",
       true,
       {}},
      {"IPv6 slices travel",
       {{"kubernetes.io/service-name", "db"}},
       R"({"addressType":"IPv6","endpoints":[{"addresses":["2001:db8::10"]}]})",
       Json(R"({"addressType":"IPv6","endpoints":[{"addresses":["2001:db8::10"]}]})"),
       "",
       false,
       {}},
      {"members no translator knows are left out and reported",
       {{"kubernetes.io/service-name", "db"}},
       R"({"addressType":"IPv4","endpoints":[{"addresses":["192.168.5.10"],
          "deprecatedTopology":{"a":"b"}}],"ports":[{"port":1,"shiny":true}]})",
       Json(R"({"addressType":"IPv4","endpoints":[{"addresses":["192.168.5.10"]}],
          "ports":[{"port":1}]})"),
       "",
       false,
       {"ports[].shiny", "endpoints[].deprecatedTopology"}},
  };
  for (const Row& row : rows) {
    kube::Object slice = kube::BuildJson(WithMembers(
        {{"apiVersion", "discovery.k8s.io/v1"},
         {"kind", "EndpointSlice"},
         {"metadata",
          kube::JsonObject{
              {"name", "db-1"}, {"namespace", "ml"}, {"uid", "s1"}, {"labels", row.labels}}}},
        row.body));
    TranslationNotes notes;
    kube::Object host = translator.ToHost(slice, OneNodeNetwork(kTenantPodIp), &notes);
    EXPECT_EQ(kube::Label(host, kServiceNameLabel), HostName("db", "ml", "nlp")) << row.decision;
    EXPECT_EQ(kube::Label(host, kSliceManagedByLabel), kSyncerSliceManager) << row.decision;
    EXPECT_EQ(notes.refusal.has_value(), row.refused) << row.decision;
    EXPECT_EQ(notes.dropped, row.dropped) << row.decision;
    if (row.refused) continue;
    kube::Object body = kube::Clone(host);
    for (const char* m : {"apiVersion", "kind", "metadata"}) body.RemoveMember(m);
    EXPECT_EQ(body, row.host_body) << row.decision << ": " << kube::ToJson(body);
    if (row.warned.empty()) {
      EXPECT_TRUE(notes.warnings.empty()) << row.decision;
    } else {
      ASSERT_EQ(notes.warnings.size(), 1u) << row.decision;
      EXPECT_EQ(notes.warnings[0].reason, kEndpointAddressNotAllowed);
      EXPECT_NE(notes.warnings[0].message.find(row.warned), std::string::npos)
          << notes.warnings[0].message;
    }
  }
}

// The steps of EndpointsTranslatorTest.UpdateFollowsTheAddresses, on a
// slice: each translator's Update is checked on its own kind.
TEST(EndpointSliceTranslatorTest, UpdateCarriesChangedEndpointsOnly) {
  SyncerConfig config = NlpConfig();
  EndpointSliceTranslator translator(config);
  kube::Object slice = Slice({{"kubernetes.io/service-name", "db"}});
  kube::Object host = translator.ToHost(slice, OneNodeNetwork(kTenantPodIp));
  kube::SetString(host, {"metadata"}, "resourceVersion", "41");
  EXPECT_FALSE(translator.Update(translator.ToHost(slice, OneNodeNetwork(kTenantPodIp)), host));

  slice["endpoints"][2]["addresses"][0].SetString("192.168.5.12", slice.GetAllocator());
  std::optional<kube::Object> update =
      translator.Update(translator.ToHost(slice, OneNodeNetwork(kTenantPodIp)), host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString((*update)["endpoints"][2]["addresses"][0], {}), "192.168.5.12");
  EXPECT_EQ(kube::ResourceVersion(*update), "41");
  EXPECT_EQ(kube::Label(*update, kServiceNameLabel), HostName("db", "ml", "nlp"));
}

}  // namespace
}  // namespace vtenant::syncer

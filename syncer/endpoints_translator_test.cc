#include "syncer/endpoints_translator.h"

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

// The address of the tenant's one host pod in OneNodeNetwork.
// endpoint_slice_translator_test.cc opens alike on purpose, with a pod of
// its own: both kinds carry addresses of the same fixtures.
constexpr char kTenantPodIp[] = "10.244.0.4";

// Endpoints ml/db of `subsets` (JSON).
kube::Object Endpoints(const std::string& subsets) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Endpoints"},
      {"metadata", kube::JsonObject{{"name", "db"}, {"namespace", "ml"}, {"uid", "e1"}}},
      {"subsets", kube::JsonValue(Json(subsets))}});
}

// One row per decision on hand-written Endpoints.
TEST(EndpointsTranslatorTest, Table) {
  const SyncerConfig config = NlpConfig();
  EndpointsTranslator translator(config);
  struct Row {
    const char* decision;
    std::string subsets;
    kube::Object host_subsets;  // exactly
    bool warned;                // EndpointAddressNotAllowed
    DroppedFields dropped;
  } rows[] = {
      {"an external address with its hostname and ports travels",
       R"([{"addresses":[{"ip":"192.168.5.10","hostname":"db-0"}],
            "ports":[{"name":"pg","port":5432,"protocol":"TCP","appProtocol":"postgresql"}]}])",
       Json(R"([{"addresses":[{"ip":"192.168.5.10","hostname":"db-0"}],
            "ports":[{"name":"pg","port":5432,"protocol":"TCP","appProtocol":"postgresql"}]}])"),
       false,
       {}},
      {"the tenant's own pod, its targetRef made the host pod's",
       R"([{"addresses":[{"ip":"10.244.0.4","nodeName":"l40s-0",
            "targetRef":{"kind":"Pod","name":"db-1","uid":"p1"}}],"ports":[{"port":5432}]}])",
       kube::BuildJson(kube::JsonArray{kube::JsonObject{
           {"addresses", kube::JsonArray{kube::JsonObject{
                             {"ip", "10.244.0.4"},
                             {"nodeName", "l40s-0"},
                             {"targetRef", HostPodRef(HostName("db-1", "ml", "nlp"))}}}},
           {"ports", kube::JsonArray{kube::JsonObject{{"port", 5432}}}}}}),
       false,
       {}},
      {"a targetRef to anything but a pod is dropped",
       R"([{"notReadyAddresses":[{"ip":"192.168.5.11",
            "targetRef":{"kind":"Service","namespace":"ml","name":"x"}}]}])",
       Json(R"([{"notReadyAddresses":[{"ip":"192.168.5.11"}]}])"),
       false,
       {}},
      {"hostile: a node's address, another tenant's pod and the metadata service are left off",
       R"([{"addresses":[{"ip":"192.168.0.2"},{"ip":"10.244.0.9"},{"ip":"192.168.5.10"}],
            "notReadyAddresses":[{"ip":"169.254.169.254"}],"ports":[{"port":80}]}])",
       Json(R"([{"addresses":[{"ip":"192.168.5.10"}],"ports":[{"port":80}]}])"),
       true,
       {}},
      {"hostile: a subset left without addresses goes",
       R"([{"addresses":[{"ip":"192.168.0.2"}],"ports":[{"port":10250}]},
           {"addresses":[{"ip":"192.168.5.10"}],"ports":[{"port":80}]}])",
       Json(R"([{"addresses":[{"ip":"192.168.5.10"}],"ports":[{"port":80}]}])"),
       true,
       {}},
      {"members no translator knows are left out and reported",
       R"([{"addresses":[{"ip":"192.168.5.10","shiny":1}],"shiny":2}])",
       Json(R"([{"addresses":[{"ip":"192.168.5.10"}]}])"),
       false,
       {"subsets[].shiny", "subsets[].addresses[].shiny"}},
  };
  for (const Row& row : rows) {
    TranslationNotes notes;
    kube::Object host =
        translator.ToHost(Endpoints(row.subsets), OneNodeNetwork(kTenantPodIp), &notes);
    EXPECT_EQ(kube::Name(host), HostName("db", "ml", "nlp")) << row.decision;
    EXPECT_EQ(host["subsets"], row.host_subsets)
        << row.decision << ": " << kube::ToJson(host["subsets"]);
    EXPECT_EQ(notes.warnings.size(), row.warned ? 1u : 0u) << row.decision;
    if (row.warned) {
      EXPECT_EQ(notes.warnings[0].reason, kEndpointAddressNotAllowed);
      EXPECT_EQ(notes.warnings[0].message.find("192.168.5.10"), std::string::npos)
          << notes.warnings[0].message;
    }
    EXPECT_FALSE(notes.refusal) << row.decision;
    EXPECT_EQ(notes.dropped, row.dropped) << row.decision;
  }
}

// The steps of EndpointSliceTranslatorTest.UpdateCarriesChangedEndpointsOnly,
// on Endpoints: each translator's Update is checked on its own kind.
TEST(EndpointsTranslatorTest, UpdateFollowsTheAddresses) {
  const SyncerConfig config = NlpConfig();
  EndpointsTranslator translator(config);
  kube::Object endpoints = Endpoints(R"([{"addresses":[{"ip":"192.168.5.10"}]}])");
  kube::Object host = translator.ToHost(endpoints, OneNodeNetwork(kTenantPodIp));
  EXPECT_FALSE(translator.Update(translator.ToHost(endpoints, OneNodeNetwork(kTenantPodIp)), host));
  endpoints["subsets"][0]["addresses"][0]["ip"].SetString("192.168.5.11", endpoints.GetAllocator());
  std::optional<kube::Object> update =
      translator.Update(translator.ToHost(endpoints, OneNodeNetwork(kTenantPodIp)), host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString((*update)["subsets"][0]["addresses"][0], {"ip"}), "192.168.5.11");
}

}  // namespace
}  // namespace vtenant::syncer

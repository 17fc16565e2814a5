#include "syncer/device_claim_translator.h"

#include <gtest/gtest.h>

#include <string>

#include "kai/names.h"
#include "syncer/names.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

SyncerConfig GpuConfig() {
  SyncerConfig config = NlpConfig();
  config.allowed_device_classes = {"gpu.example.com", "mig.example.com"};
  return config;
}

// A ResourceClaim "gpus" in namespace ml whose spec.devices is `devices`.
kube::Object Claim(const std::string& devices) {
  return Json(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"gpus","namespace":"ml","uid":"c1","labels":{"app":"train"}},
      "spec":{"devices":)" +
              devices + "}}");
}

constexpr char kOneGpu[] =
    R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]})";

// One row per decision on a claim's devices.
TEST(DeviceClaimTranslatorTest, Table) {
  const SyncerConfig config = GpuConfig();
  DeviceClaimTranslator translator(config);
  struct Row {
    const char* decision;
    std::string devices;  // the virtual claim's spec.devices
    std::string host;     // the host copy's spec.devices; "" = as written
    std::string refusal;  // a word of the refusal's message, or ""
    DroppedFields dropped;
  } rows[] = {
      {"a request of a listed class travels", kOneGpu, "", "", {}},
      {"selectors, counts, modes and constraints travel",
       R"({"requests":[{"name":"gpus","exactly":{"deviceClassName":"gpu.example.com",
            "selectors":[{"cel":{"expression":"device.attributes['gpu.example.com'].model == 'L40S'"}}],
            "allocationMode":"ExactCount","count":2}}],
          "constraints":[{"requests":["gpus"],"matchAttribute":"gpu.example.com/numa"}]})",
       "",
       "",
       {}},
      {"first-available subrequests of listed classes travel",
       R"({"requests":[{"name":"gpu","firstAvailable":[
            {"name":"mig","deviceClassName":"mig.example.com"},
            {"name":"whole","deviceClassName":"gpu.example.com","allocationMode":"All"}]}]})",
       "",
       "",
       {}},
      {"hostile: a class the Tenant does not list is refused",
       R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"nic.example.com"}}]})",
       "",
       "requests[\"gpu\"].exactly.deviceClassName \"nic.example.com\"",
       {}},
      {"hostile: an unlisted class hidden in a subrequest is refused",
       R"({"requests":[{"name":"gpu","firstAvailable":[
            {"name":"a","deviceClassName":"gpu.example.com"},
            {"name":"b","deviceClassName":"fpga.example.com"}]}]})",
       "",
       "firstAvailable[\"b\"].deviceClassName",
       {}},
      {"hostile: admin access (devices other tenants hold) is refused",
       R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",
            "adminAccess":true}}]})",
       "",
       "adminAccess",
       {}},
      {"admin access false is no request",
       R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",
            "adminAccess":false}}]})",
       R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]})",
       "",
       {}},
      {"hostile: tolerating a device taint is refused",
       R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",
            "tolerations":[{"key":"broken","operator":"Exists"}]}}]})",
       "",
       "tolerations",
       {}},
      {"hostile: a driver configuration of the tenant's is refused",
       R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}],
          "config":[{"opaque":{"driver":"gpu.example.com","parameters":{"sharing":"all"}}}]})",
       "",
       "devices.config",
       {}},
      {"consumable capacity is refused",
       R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",
            "capacity":{"requests":{"memory":"4Gi"}}}}]})",
       "",
       "capacity",
       {}},
      {"a member no translator knows is left out and reported",
       R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",
            "shiny":true}}],"future":1})",
       kOneGpu,
       "",
       {"spec.devices.requests[].exactly.shiny", "spec.devices.future"}},
  };
  for (const Row& row : rows) {
    TranslationNotes notes;
    kube::Object host = translator.ToHost(Claim(row.devices), &notes);
    EXPECT_EQ(kube::Name(host), HostName("gpus", "ml", "nlp")) << row.decision;
    EXPECT_EQ(notes.dropped, row.dropped) << row.decision;
    if (!row.refusal.empty()) {
      ASSERT_TRUE(notes.refusal) << row.decision;
      EXPECT_EQ(notes.refusal->reason, "DeviceClaimNotAllowed") << row.decision;
      EXPECT_NE(notes.refusal->message.find(row.refusal), std::string::npos)
          << row.decision << ": " << notes.refusal->message;
      continue;
    }
    EXPECT_FALSE(notes.refusal) << row.decision << ": " << notes.refusal->message;
    EXPECT_EQ(host["spec"]["devices"], Json(row.host.empty() ? row.devices : row.host))
        << row.decision << ": " << kube::ToJson(host["spec"]);
  }
}

TEST(DeviceClaimTranslatorTest, NoClassIsAllowedUntilTheTenantListsOne) {
  DeviceClaimTranslator translator(NlpConfig());
  TranslationNotes notes;
  translator.ToHost(Claim(kOneGpu), &notes);
  ASSERT_TRUE(notes.refusal);
  EXPECT_NE(notes.refusal->message.find("allowedDeviceClasses: none"), std::string::npos)
      << notes.refusal->message;
}

// The scheduler charges a GPU claim pods share to the queue its label
// names, so the label is the tenant's queue whatever the team wrote; and
// nothing the team wrote in status reaches the host.
TEST(DeviceClaimTranslatorTest, TheCopyIsChargedToTheTenantsQueue) {
  const SyncerConfig config = GpuConfig();
  DeviceClaimTranslator translator(config);
  kube::Object claim = Claim(kOneGpu);
  kube::SetString(claim, {"metadata", "labels"}, kai::kQueueLabel, "vision");
  kube::Object status = Json(R"({"allocation":{"devices":{"results":[{"request":"gpu",
      "driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}},
      "reservedFor":[{"resource":"pods","name":"other","uid":"u"}]})");
  claim.AddMember("status", rapidjson::Value(status, claim.GetAllocator()), claim.GetAllocator());
  TranslationNotes notes;
  kube::Object host = translator.ToHost(claim, &notes);
  EXPECT_FALSE(notes.refusal);
  EXPECT_EQ(kube::Label(host, kai::kQueueLabel), "nlp");
  EXPECT_EQ(kube::Label(host, "app"), "train");
  EXPECT_EQ(kube::Namespace(host), "vtenant-nlp");
  EXPECT_FALSE(kube::Find(host, {"status"}));
}

// A template's copy: the claims the host makes from it carry the tenant's
// queue and none of the host's reserved keys; its claim spec is checked as
// a claim's.
TEST(DeviceClaimTranslatorTest, TemplatesAreCheckedAsClaims) {
  const SyncerConfig config = GpuConfig();
  DeviceClaimTranslator translator(config);
  auto claim_template = [](const std::string& devices) {
    return Json(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",
        "metadata":{"name":"one-gpu","namespace":"ml"},
        "spec":{"metadata":{"labels":{"app":"train","kai.scheduler/queue":"vision",
                                      "vtenant.io/tenant":"vision"},
                            "annotations":{"resource.kubernetes.io/pod-claim-name":"x"}},
                "spec":{"devices":)" +
                devices + "}}}");
  };
  TranslationNotes notes;
  kube::Object host = translator.ToHost(claim_template(kOneGpu), &notes);
  EXPECT_FALSE(notes.refusal);
  EXPECT_EQ(kube::Name(host), HostName("one-gpu", "ml", "nlp"));
  EXPECT_EQ(host["spec"]["metadata"],
            Json(R"({"labels":{"app":"train","kai.scheduler/queue":"nlp"}})"));
  EXPECT_EQ(host["spec"]["spec"]["devices"], Json(kOneGpu));
  EXPECT_EQ(notes.dropped,
            (DroppedFields{"spec.metadata.labels['kai.scheduler/queue']",
                           "spec.metadata.labels['vtenant.io/tenant']",
                           "spec.metadata.annotations['resource.kubernetes.io/pod-claim-name']"}));

  TranslationNotes refused;
  translator.ToHost(claim_template(R"({"requests":[{"name":"gpu","exactly":{
      "deviceClassName":"gpu.example.com","adminAccess":true}}]})"),
                    &refused);
  ASSERT_TRUE(refused.refusal);
  EXPECT_NE(
      refused.refusal->message.find("spec.spec.devices.requests[\"gpu\"].exactly.adminAccess"),
      std::string::npos)
      << refused.refusal->message;
}

TEST(DeviceClaimTranslatorTest, UpdateTakesLabelsAndKeepsWhatTheHostWrote) {
  const SyncerConfig config = GpuConfig();
  DeviceClaimTranslator translator(config);
  kube::Object desired = translator.ToHost(Claim(kOneGpu));
  kube::Object host = kube::Clone(desired);
  kube::SetString(host, {"metadata"}, "resourceVersion", "7");
  host.AddMember("status", rapidjson::Value(Json(R"({"reservedFor":[]})"), host.GetAllocator()),
                 host.GetAllocator());
  EXPECT_FALSE(translator.Update(desired, host));
  kube::SetString(desired, {"metadata", "labels"}, "app", "serve");
  std::optional<kube::Object> updated = translator.Update(desired, host);
  ASSERT_TRUE(updated);
  EXPECT_EQ(kube::Label(*updated, "app"), "serve");
  EXPECT_EQ(kube::GetString(*updated, {"metadata", "resourceVersion"}), "7");
  EXPECT_TRUE(kube::Find(*updated, {"status"}));
}

// The team sees the devices it got; never the host pods the copy is
// reserved for; and an allocation that changed is cleared before the new
// one is shown (the API lets no allocation change once set).
TEST(DeviceClaimTranslatorTest, TheVirtualStatusShowsTheCopysAllocation) {
  const SyncerConfig config = GpuConfig();
  DeviceClaimTranslator translator(config);
  const kube::Object claim = Claim(kOneGpu);
  auto allocated = [&](const std::string& device) {
    kube::Object host = translator.ToHost(claim);
    kube::Object status = Json(R"({"allocation":{"devices":{"results":[{"request":"gpu",
        "driver":"gpu.example.com","pool":"l40s-0","device":")" +
                               device + R"("}]}},
        "reservedFor":[{"resource":"pods","name":"train-x-ml-x-nlp","uid":"h1"}],
        "devices":[{"driver":"gpu.example.com","pool":"l40s-0","device":")" +
                               device + R"(","conditions":[]}]})");
    host.AddMember("status", rapidjson::Value(status, host.GetAllocator()), host.GetAllocator());
    return host;
  };
  EXPECT_FALSE(translator.StatusFromHost(nullptr, claim));
  const kube::Object host = allocated("gpu-0");
  std::optional<kube::Object> shown = translator.StatusFromHost(&host, claim);
  ASSERT_TRUE(shown);
  EXPECT_EQ((*shown)["status"]["allocation"], host["status"]["allocation"]);
  EXPECT_EQ((*shown)["status"]["devices"], host["status"]["devices"]);
  EXPECT_FALSE(kube::Find(*shown, {"status", "reservedFor"}));
  EXPECT_FALSE(translator.StatusFromHost(&host, *shown)) << "shown alike every time";

  const kube::Object moved = allocated("gpu-1");
  std::optional<kube::Object> cleared = translator.StatusFromHost(&moved, *shown);
  ASSERT_TRUE(cleared);
  EXPECT_EQ((*cleared)["status"], Json("{}"));
  std::optional<kube::Object> reshown = translator.StatusFromHost(&moved, *cleared);
  ASSERT_TRUE(reshown);
  EXPECT_EQ((*reshown)["status"]["allocation"], moved["status"]["allocation"]);

  // The copy gone (no pod names the claim any more): nothing is shown.
  std::optional<kube::Object> gone = translator.StatusFromHost(nullptr, *reshown);
  ASSERT_TRUE(gone);
  EXPECT_EQ((*gone)["status"], Json("{}"));
}

}  // namespace
}  // namespace vtenant::syncer

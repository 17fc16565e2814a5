// The MutatingWebhookConfiguration the scheduler registers.
#include "scheduler/webhook_server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kube/base64.h"
#include "kube/json_builder.h"
#include "kube/loopback.h"
#include "kube/tls_stream.h"

namespace vtenant::scheduler {
namespace {

// One of KAI's object checks as the API server is told it: open, never
// reinvoked.
kube::JsonObject Checks(const std::string& name, kube::JsonArray operations,
                        const std::string& version, const std::string& resource,
                        const std::string& scope) {
  return kube::JsonObject{
      {"name", name},
      {"admissionReviewVersions", kube::JsonArray{"v1"}},
      {"sideEffects", "None"},
      {"timeoutSeconds", 5},
      {"failurePolicy", "Ignore"},
      {"clientConfig", kube::JsonObject{{"url", "https://127.0.0.1:9443/mutate"},
                                        {"caBundle", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="}}},
      {"rules",
       kube::JsonArray{kube::JsonObject{{"operations", std::move(operations)},
                                        {"apiGroups", kube::JsonArray{"scheduling.run.ai"}},
                                        {"apiVersions", kube::JsonArray{version}},
                                        {"resources", kube::JsonArray{resource}},
                                        {"scope", scope}}}},
      {"reinvocationPolicy", "Never"}};
}

// What the API server is told: four webhooks on the same URL, the one for
// sharing pods failing closed, the other pods' open, neither for other
// schedulers' pods nor for the reservation namespace; and the PodGroup and
// Queue checks, open.
TEST(WebhookConfigurationTest, FourWebhooksOnlyTheSharingOneFailsClosed) {
  WebhookOptions o;
  const kube::Object config =
      WebhookConfiguration(o, "https://127.0.0.1:9443/mutate", "-----BEGIN CERTIFICATE-----\n");
  const std::string sharing =
      "has(object.metadata.annotations) && ('gpu-fraction' in object.metadata.annotations || "
      "'gpu-memory' in object.metadata.annotations)";
  // The expected webhooks are spelled out apart from WebhookConfiguration's
  // own builder, on purpose: the same shape twice, so that a change to the
  // wire format shows here.
  auto hook = [&](const std::string& name, const std::string& policy,
                  const std::string& condition) {
    return kube::JsonObject{
        {"name", name},
        {"admissionReviewVersions", kube::JsonArray{"v1"}},
        {"sideEffects", "None"},
        {"timeoutSeconds", 5},
        {"failurePolicy", policy},
        {"reinvocationPolicy", "IfNeeded"},
        {"clientConfig",
         kube::JsonObject{{"url", "https://127.0.0.1:9443/mutate"},
                          {"caBundle", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="}}},
        {"rules", kube::JsonArray{kube::JsonObject{{"operations", kube::JsonArray{"CREATE"}},
                                                   {"apiGroups", kube::JsonArray{""}},
                                                   {"apiVersions", kube::JsonArray{"v1"}},
                                                   {"resources", kube::JsonArray{"pods"}},
                                                   {"scope", "Namespaced"}}}},
        {"namespaceSelector",
         kube::JsonObject{{"matchExpressions", kube::JsonArray{kube::JsonObject{
                                                   {"key", "kubernetes.io/metadata.name"},
                                                   {"operator", "NotIn"},
                                                   {"values", kube::JsonArray{"vtenant-reservation",
                                                                              "kube-system"}}}}}}},
        {"matchConditions",
         kube::JsonArray{
             kube::JsonObject{{"name", "ours"},
                              {"expression", "object.spec.schedulerName == 'kai-scheduler'"}},
             kube::JsonObject{{"name", "share"}, {"expression", condition}}}}};
  };
  const kube::Object want = kube::BuildJson(kube::JsonObject{
      {"apiVersion", "admissionregistration.k8s.io/v1"},
      {"kind", "MutatingWebhookConfiguration"},
      {"metadata", kube::JsonObject{{"name", "vtenant-scheduler"}}},
      {"webhooks",
       kube::JsonArray{hook("gpu-sharing.vtenant.io", "Fail", sharing),
                       hook("gpu-requests.vtenant.io", "Ignore", "!(" + sharing + ")"),
                       Checks("podgroups.vtenant.io", kube::JsonArray{"CREATE", "UPDATE"},
                              "v2alpha2", "podgroups", "Namespaced"),
                       Checks("queues.vtenant.io", kube::JsonArray{"CREATE", "UPDATE", "DELETE"},
                              "v2", "queues", "Cluster")}}});
  EXPECT_TRUE(config == want) << kube::ToJson(config);
}

// With device access blocked, the other pods' webhook fails closed too: no
// pod of ours passes unblocked while the webhook is down.
TEST(WebhookConfigurationTest, BlockingDeviceAccessClosesTheOtherPodsWebhook) {
  WebhookOptions o;
  o.admission.block_visible_devices = true;
  const kube::Object config = WebhookConfiguration(o, "https://127.0.0.1:9443/mutate", "pem");
  ASSERT_TRUE(config.IsObject());
  EXPECT_EQ(kube::GetString(config["webhooks"][1], {"name"}), "gpu-requests.vtenant.io");
  EXPECT_EQ(kube::GetString(config["webhooks"][1], {"failurePolicy"}), "Fail");
}

// Every value is a JSON string whatever it holds, and the scheduler's name is
// one CEL string literal in the match condition.
TEST(WebhookConfigurationTest, ValuesWithQuotesAndNewlinesStayValues) {
  WebhookOptions o;
  o.config_name = "name\"with\nquote";
  o.reservation_namespace = "ns\",\"default";
  o.admission.scheduler_name = R"(it's "ours"\)";
  const std::string url = "https://host/mutate?x=\"y\"";
  const kube::Object config = WebhookConfiguration(o, url, "ca\"pem\n");
  ASSERT_TRUE(config.IsObject()) << kube::ToJson(config);
  EXPECT_EQ(kube::Name(config), o.config_name);
  const rapidjson::Value& webhooks = config["webhooks"];
  ASSERT_EQ(webhooks.Size(), 4u) << kube::ToJson(config);
  for (const rapidjson::Value& hook : webhooks.GetArray()) {
    EXPECT_EQ(kube::GetString(hook, {"clientConfig", "url"}), url);
    EXPECT_EQ(kube::DecodeBase64(kube::GetString(hook, {"clientConfig", "caBundle"})).value(),
              "ca\"pem\n");
    if (!hook.HasMember("matchConditions")) continue;  // KAI's object checks: no pods
    const rapidjson::Value& values = hook["namespaceSelector"]["matchExpressions"][0]["values"];
    ASSERT_EQ(values.Size(), 2u) << kube::ToJson(values);
    EXPECT_EQ(std::string_view(values[0].GetString()), o.reservation_namespace);
    EXPECT_EQ(kube::GetString(hook["matchConditions"][0], {"expression"}),
              R"(object.spec.schedulerName == 'it\'s "ours"\\')");
  }
}

// An API server may have many webhook calls open at once, each request's
// head delivered before its body. Forty-eight at once, more than the forty
// threads of cpprestsdk's I/O pool, every body sent only once all the heads
// are in: each is answered. (A handler that waited for its body on the pool
// would hold a thread the bodies need, and here none would be answered.)
TEST(WebhookServerTest, ABurstOfRequestsWhoseBodiesComeLateIsAllAnswered) {
  Result<int> port = kube::PickFreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status().ToString();
  WebhookOptions options;
  options.port = static_cast<uint16_t>(*port);
  WebhookServer server(options);
  ASSERT_TRUE(server.Start().ok());

  const std::string body =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1",)"
      R"("object":{"metadata":{"name":"p"},"spec":{"schedulerName":"kai-scheduler",)"
      R"("containers":[{"name":"a"}]}}}})";
  kube::RestConfig config;
  config.server = "https://127.0.0.1:" + std::to_string(*port);
  // Verified against the CA it publishes: the certificate it made and kept
  // in memory is the one it serves.
  config.ca_pem = server.ca_pem();
  constexpr int kRequests = 48;
  std::vector<std::unique_ptr<kube::TlsStream>> calls;
  for (int i = 0; i < kRequests; ++i) {
    // The deadline bounds each read: a server that never answers fails the
    // test instead of hanging it.
    Result<std::unique_ptr<kube::TlsStream>> call = kube::DialTls(config, std::chrono::seconds(20));
    ASSERT_TRUE(call.ok()) << call.status().ToString();
    ASSERT_TRUE((*call)
                    ->Write("POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            "Content-Type: application/json\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n")
                    .ok());
    calls.push_back(std::move(*call));
  }
  // Time for the server to take every head and hand it to the handler.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (auto& call : calls) ASSERT_TRUE(call->Write(body).ok());
  int answered = 0;
  for (auto& call : calls) {
    std::string head, rest;
    Status read = kube::ReadHttpHead(*call, &head, &rest);
    if (!read.ok()) {
      ADD_FAILURE() << "request " << answered << " not answered: " << read.ToString();
      break;
    }
    EXPECT_EQ(head.substr(0, 12), "HTTP/1.1 200") << head;
    ++answered;
  }
  EXPECT_EQ(answered, kRequests);
}

}  // namespace
}  // namespace vtenant::scheduler

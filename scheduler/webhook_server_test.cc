// The MutatingWebhookConfiguration the scheduler registers.
#include "scheduler/webhook_server.h"

#include <gtest/gtest.h>

#include "kube/base64.h"

namespace vtenant::scheduler {
namespace {

// What the API server is told: two webhooks on the same URL, the one for
// sharing pods failing closed, the other open; neither for other
// schedulers' pods nor for the reservation namespace.
TEST(WebhookConfigurationTest, TwoWebhooksOnlyTheSharingOneFailsClosed) {
  WebhookOptions o;
  const kube::Object config =
      WebhookConfiguration(o, "https://127.0.0.1:9443/mutate", "-----BEGIN CERTIFICATE-----\n");
  const std::string sharing =
      "has(object.metadata.annotations) && ('gpu-fraction' in object.metadata.annotations || "
      "'gpu-memory' in object.metadata.annotations)";
  auto hook = [&](const std::string& name, const std::string& policy,
                  const std::string& condition) {
    return R"({"name":")" + name +
           R"(","admissionReviewVersions":["v1"],"sideEffects":"None","timeoutSeconds":5,)"
           R"("failurePolicy":")" +
           policy +
           R"(","reinvocationPolicy":"IfNeeded","clientConfig":{"url":"https://127.0.0.1:9443/mutate",)"
           R"("caBundle":"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="},)"
           R"("rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],)"
           R"("resources":["pods"],"scope":"Namespaced"}],)"
           R"("namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name",)"
           R"("operator":"NotIn","values":["vtenant-reservation","kube-system"]}]},)"
           R"("matchConditions":[{"name":"ours","expression":"object.spec.schedulerName == 'kai-scheduler'"},)"
           R"({"name":"share","expression":")" +
           condition + R"("}]})";
  };
  const kube::Object want =
      kube::ParseJson(
          R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration",)"
          R"("metadata":{"name":"vtenant-scheduler"},"webhooks":[)" +
          hook("gpu-sharing.vtenant.io", "Fail", sharing) + "," +
          hook("gpu-requests.vtenant.io", "Ignore", "!(" + sharing + ")") + "]}")
          .value();
  EXPECT_TRUE(config == want) << kube::ToJson(config);
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
  ASSERT_EQ(webhooks.Size(), 2u) << kube::ToJson(config);
  for (const rapidjson::Value& hook : webhooks.GetArray()) {
    EXPECT_EQ(kube::GetString(hook, {"clientConfig", "url"}), url);
    EXPECT_EQ(kube::DecodeBase64(kube::GetString(hook, {"clientConfig", "caBundle"})).value(),
              "ca\"pem\n");
    const rapidjson::Value& values = hook["namespaceSelector"]["matchExpressions"][0]["values"];
    ASSERT_EQ(values.Size(), 2u) << kube::ToJson(values);
    EXPECT_EQ(std::string_view(values[0].GetString()), o.reservation_namespace);
    EXPECT_EQ(kube::GetString(hook["matchConditions"][0], {"expression"}),
              R"(object.spec.schedulerName == 'it\'s "ours"\\')");
  }
}

}  // namespace
}  // namespace vtenant::scheduler

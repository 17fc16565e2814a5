#include "operator/host_objects.h"

#include <gtest/gtest.h>

namespace vtenant::op {
namespace {

TenantSpec Nlp() {
  TenantSpec spec;
  spec.name = "nlp";
  return spec;
}

std::string Json(const rapidjson::Value& v) { return kube::ToJson(v); }

TEST(NetworkPolicyTest, PodsTalkWithinTheirNamespaceAndOutsideTheClusterOnly) {
  kube::Object np = RenderNetworkPolicy(Nlp());
  EXPECT_EQ(kube::Name(np), "vtenant-isolation");
  EXPECT_EQ(kube::Namespace(np), "vtenant-nlp");
  const rapidjson::Value& spec = np["spec"];
  EXPECT_EQ(Json(spec["podSelector"]), "{}");  // every pod of the namespace
  EXPECT_EQ(Json(spec["policyTypes"]), R"(["Ingress","Egress"])");
  // In: from this namespace only; no port open to anyone else (the API
  // server port no longer is).
  EXPECT_EQ(Json(spec["ingress"]), R"([{"from":[{"podSelector":{}}]}])");
  // Out: this namespace, DNS, and addresses outside the cluster's ranges.
  ASSERT_EQ(spec["egress"].Size(), 3u);
  EXPECT_EQ(Json(spec["egress"][0]), R"({"to":[{"podSelector":{}}]})");
  EXPECT_EQ(Json(spec["egress"][1]),
            R"({"ports":[{"protocol":"UDP","port":53},{"protocol":"TCP","port":53}]})");
  const std::string outside = Json(spec["egress"][2]);
  for (const char* range : {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
                            "169.254.0.0/16", "127.0.0.0/8", "fc00::/7", "fe80::/10"}) {
    EXPECT_NE(outside.find(std::string("\"") + range + "\""), std::string::npos) << range;
  }
  // No rule names another namespace or selects by a key a tenant could set.
  EXPECT_EQ(Json(spec).find("namespaceSelector"), std::string::npos);
}

TEST(NetworkPolicyTest, OnlyTheOperatorReachesTheControlPlaneFromOutside) {
  kube::Object np = RenderControlPlaneNetworkPolicy(Nlp(), "vtenant-system");
  EXPECT_EQ(kube::Name(np), "vtenant-control-plane");
  const rapidjson::Value& spec = np["spec"];
  EXPECT_EQ(Json(spec["podSelector"]),
            R"({"matchLabels":{"vtenant.io/component":"control-plane"},)"
            R"("matchExpressions":[{"key":"vtenant.io/managed-by","operator":"DoesNotExist"}]})");
  EXPECT_EQ(Json(spec["ingress"]), R"([{"from":[{"namespaceSelector":{"matchLabels":)"
                                   R"({"kubernetes.io/metadata.name":"vtenant-system"}}}],)"
                                   R"("ports":[{"protocol":"TCP","port":6443}]}])");
  EXPECT_EQ(Json(spec["egress"]), "[{}]");
}

TEST(NamespaceTest, CarriesTheTenantAndItsPodSecurityLevel) {
  TenantSpec spec = Nlp();
  spec.isolation.pod_security = "restricted";
  kube::Object ns = RenderNamespace(spec);
  EXPECT_EQ(kube::Name(ns), "vtenant-nlp");
  EXPECT_EQ(kube::Label(ns, "vtenant.io/tenant").value_or(""), "nlp");
  EXPECT_EQ(kube::Label(ns, "app.kubernetes.io/managed-by").value_or(""), "vtenant-operator");
  EXPECT_EQ(kube::Label(ns, "pod-security.kubernetes.io/enforce").value_or(""), "restricted");
  EXPECT_EQ(kube::Annotation(ns, "vtenant.io/backend").value_or(""), "process");
}

TEST(QueueTest, IsKaisQueueWithTheTenantsShareAndEveryStringEscaped) {
  TenantSpec spec = Nlp();
  spec.display_name = R"(NLP "research")";
  spec.queue.parent_queue = "ml-org";
  spec.queue.gpu = {.quota = 0.33, .limit = 1, .over_quota_weight = 2};
  EXPECT_EQ(
      Json(RenderQueue(spec)),
      R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"nlp",)"
      R"("labels":{"vtenant.io/tenant":"nlp","app.kubernetes.io/managed-by":"vtenant-operator"}},)"
      R"("spec":{"parentQueue":"ml-org","displayName":"NLP \"research\"","priority":100,)"
      R"("resources":{"gpu":{"quota":0.33,"limit":1,"overQuotaWeight":2},)"
      R"("cpu":{"quota":-1,"limit":-1,"overQuotaWeight":1},)"
      R"("memory":{"quota":-1,"limit":-1,"overQuotaWeight":1}}}})");
  // A top-level queue has no parent and, without one, no display name.
  const kube::Object top = RenderQueue(Nlp());
  EXPECT_EQ(kube::Find(top, {"spec", "parentQueue"}), nullptr);
  EXPECT_EQ(kube::Find(top, {"spec", "displayName"}), nullptr);
}

TEST(KubeconfigReaderTest, TheTeamsAdminsMayReadTheirKubeconfigSecretAndNothingElse) {
  TenantSpec spec = Nlp();
  spec.admin_users = {"alice@example.com"};
  spec.admin_groups = {"nlp-admins"};
  EXPECT_EQ(Json(RenderKubeconfigReaderRole(spec)["rules"]),
            R"([{"apiGroups":[""],"resources":["secrets"],"resourceNames":["vc-nlp"],)"
            R"("verbs":["get"]}])");
  const kube::Object binding = RenderKubeconfigReaderBinding(spec);
  EXPECT_EQ(kube::Namespace(binding), "vtenant-nlp");
  EXPECT_EQ(Json(binding["roleRef"]), R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Role",)"
                                      R"("name":"vc-nlp-kubeconfig-reader"})");
  EXPECT_EQ(Json(binding["subjects"]),
            R"([{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice@example.com"},)"
            R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"nlp-admins"}])");
  EXPECT_EQ(Json(RenderKubeconfigReaderBinding(Nlp())["subjects"]), "[]");
  EXPECT_EQ(kube::Name(RenderSyncerServiceAccount(spec)), kSyncerServiceAccount);
  EXPECT_EQ(kube::Namespace(RenderSyncerServiceAccount(spec)), "vtenant-nlp");
}

}  // namespace
}  // namespace vtenant::op

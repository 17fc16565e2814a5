// Unit: `vtenant kubeconfig <tenant>` over an in-memory API server.
#include "cli/tenant_kubeconfig.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/json.h"

namespace vtenant::cli {
namespace {

namespace res = kube::resources;

void Create(kube::FakeClient& client, const kube::ResourceType& type, const std::string& ns,
            const kube::Object& object) {
  Status s = client.Create(type, ns, object).status();
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// Tenant `name` whose status is the JSON object `status`.
void CreateTenant(kube::FakeClient& client, const std::string& name, const std::string& status) {
  Create(client, res::kTenants, "",
         kube::BuildJson(kube::JsonObject{{"apiVersion", "vtenant.io/v1alpha1"},
                                          {"kind", "Tenant"},
                                          {"metadata", kube::JsonObject{{"name", name}}},
                                          {"spec", kube::JsonObject{}},
                                          {"status", kube::JsonValue(kube::Json(status))}}));
}

// Secret `name` in `ns` whose key `config` holds `config_base64`.
void CreateConfigSecret(kube::FakeClient& client, const std::string& ns, const std::string& name,
                        const std::string& config_base64) {
  Create(client, res::kSecrets, ns,
         kube::BuildJson(
             kube::JsonObject{{"apiVersion", "v1"},
                              {"kind", "Secret"},
                              {"metadata", kube::JsonObject{{"name", name}, {"namespace", ns}}},
                              {"data", kube::JsonObject{{"config", config_base64}}}}));
}

TEST(TenantKubeconfigTest, ReadsKeyConfigOfSecretVcTenant) {
  kube::FakeClient client;
  CreateTenant(client, "nlp", R"({"phase":"Ready"})");
  // base64 of "apiVersion: v1\nkind: Config\n"
  CreateConfigSecret(client, "vtenant-nlp", "vc-nlp", "YXBpVmVyc2lvbjogdjEKa2luZDogQ29uZmlnCg==");
  Result<std::string> config = TenantKubeconfig(client, "nlp");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(*config, "apiVersion: v1\nkind: Config\n");
}

TEST(TenantKubeconfigTest, FollowsTheSecretNamedInStatus) {
  kube::FakeClient client;
  CreateTenant(client, "nlp",
               R"({"phase":"Ready","hostNamespace":"teams-nlp","kubeconfigSecret":"nlp-admin"})");
  CreateConfigSecret(client, "teams-nlp", "nlp-admin", "eDogMQo=");  // "x: 1\n"
  Result<std::string> config = TenantKubeconfig(client, "nlp");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(*config, "x: 1\n");
}

TEST(TenantKubeconfigTest, AnUnknownTenantListsTheOnesThatExist) {
  kube::FakeClient client;
  CreateTenant(client, "vision", "{}");
  CreateTenant(client, "nlp", "{}");
  Result<std::string> config = TenantKubeconfig(client, "nosuchteam");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(config.status().message(), "tenant \"nosuchteam\" does not exist; tenants: nlp vision");
}

TEST(TenantKubeconfigTest, NoTenantsAtAllIsSaid) {
  kube::FakeClient client;
  Result<std::string> config = TenantKubeconfig(client, "nlp");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "tenant \"nlp\" does not exist; there are no tenants yet");
}

TEST(TenantKubeconfigTest, ATenantStillProvisioningSaysWhatToWaitFor) {
  kube::FakeClient client;
  CreateTenant(client, "nlp", R"({"phase":"Provisioning"})");
  Result<std::string> config = TenantKubeconfig(client, "nlp");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(config.status().message().find("(phase Provisioning)"), std::string::npos);
  EXPECT_NE(config.status().message().find("Secret vc-nlp in namespace vtenant-nlp"),
            std::string::npos)
      << config.status().message();
}

}  // namespace
}  // namespace vtenant::cli

#include "operator/tenant_watches.h"

#include <gtest/gtest.h>

#include <memory>

#include "kube/json_builder.h"

namespace vtenant::op {
namespace {

kube::ObjectPtr Tenant(const std::string& name, const std::string& parent) {
  return std::make_shared<kube::Object>(kube::BuildJson(kube::JsonObject{
      {"apiVersion", "vtenant.io/v1alpha1"},
      {"kind", "Tenant"},
      {"metadata", kube::JsonObject{{"name", name}}},
      {"spec", kube::JsonObject{{"queue", kube::JsonObject{{"parentQueue", parent}}}}}}));
}

kube::Object Queue(const std::string& name, const std::string& tenant_label) {
  kube::JsonObject labels;
  if (!tenant_label.empty()) labels.Set("vtenant.io/tenant", tenant_label);
  return kube::BuildJson(
      kube::JsonObject{{"metadata", kube::JsonObject{{"name", name}, {"labels", labels}}}});
}

const std::vector<kube::ObjectPtr> kTenants = {Tenant("nlp", "ml-org"), Tenant("vision", "ml-org"),
                                               Tenant("infra", "ops")};

TEST(TenantWatchesTest, AQueueConcernsItsTenantTheTenantOfItsNameAndItsChildren) {
  // A tenant's own queue, labelled and named after it.
  EXPECT_EQ(TenantsOfQueue(Queue("nlp", "nlp"), kTenants),
            (std::vector<std::string>{"nlp", "nlp"}));
  // A parent queue: every tenant under it, none of the others.
  EXPECT_EQ(TenantsOfQueue(Queue("ml-org", ""), kTenants),
            (std::vector<std::string>{"nlp", "vision"}));
  // A queue someone else made with a tenant's name: that tenant, which was
  // refused the name, is looked at again.
  EXPECT_EQ(TenantsOfQueue(Queue("infra", ""), kTenants), (std::vector<std::string>{"infra"}));
  // Anything else concerns no tenant.
  EXPECT_TRUE(TenantsOfQueue(Queue("batch", ""), kTenants).empty());
}

TEST(TenantWatchesTest, ObjectsTheOperatorMadeBelongToTheTenantOfTheirLabel) {
  EXPECT_EQ(TenantOfLabel(Queue("vtenant-nlp", "nlp")), (std::vector<std::string>{"nlp"}));
  EXPECT_TRUE(TenantOfLabel(Queue("kube-system", "")).empty());
  EXPECT_EQ(AllTenants(kTenants), (std::vector<std::string>{"nlp", "vision", "infra"}));
  EXPECT_TRUE(AllTenants({}).empty());
}

}  // namespace
}  // namespace vtenant::op

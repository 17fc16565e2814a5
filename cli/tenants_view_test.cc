// Unit: `vtenant tenants` over an in-memory API server.
#include "cli/tenants_view.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/testing/view_output.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/json.h"

namespace vtenant::cli {
namespace {

namespace res = kube::resources;

void CreateTenant(kube::FakeClient& client, const std::string& json) {
  ASSERT_TRUE(client.Create(res::kTenants, "", kube::Json(json)).ok());
}

TEST(TenantsViewTest, ReadyTenantsShowPhaseQueueAndEndpointAndNoConditions) {
  kube::FakeClient client;
  CreateTenant(client, R"({"apiVersion":"vtenant.io/v1alpha1","kind":"Tenant",
    "metadata":{"name":"vision"},"spec":{"queue":{"parentQueue":"ml-org"}},
    "status":{"phase":"Ready","queue":"vision","endpoint":"https://127.0.0.1:40001",
      "gpuAllocated":"330m","conditions":[{"type":"Ready","status":"True"},
      {"type":"ParentQueueMissing","status":"False"}]}})");
  CreateTenant(client, R"({"apiVersion":"vtenant.io/v1alpha1","kind":"Tenant",
    "metadata":{"name":"nlp"},"spec":{"queue":{"parentQueue":"ml-org"}},
    "status":{"phase":"Ready","queue":"nlp","endpoint":"https://127.0.0.1:40000"}})");
  const std::string out = Printed(PrintTenants, client);
  EXPECT_EQ(out,
            "NAME     PHASE   QUEUE    PARENT   GPU-ALLOCATED   ENDPOINT\n"
            "nlp      Ready   nlp      ml-org   -               https://127.0.0.1:40000\n"
            "vision   Ready   vision   ml-org   330m            https://127.0.0.1:40001\n");
}

TEST(TenantsViewTest, ANotReadyTenantSaysWhy) {
  kube::FakeClient client;
  CreateTenant(client, R"({"apiVersion":"vtenant.io/v1alpha1","kind":"Tenant",
    "metadata":{"name":"orphan"},"spec":{"queue":{"parentQueue":"nosuch"}},
    "status":{"phase":"Failed","conditions":[
      {"type":"Ready","status":"False","reason":"QueueNotReady","message":"see QueueReady"},
      {"type":"ControlPlaneReady","status":"True"},
      {"type":"ParentQueueMissing","status":"True","reason":"QueueNotFound",
       "message":"parent queue \"nosuch\" does not exist"}]}})");
  const std::string out = Printed(PrintTenants, client);
  EXPECT_NE(out.find("orphan   Failed   -       nosuch"), std::string::npos) << out;
  EXPECT_NE(out.find("  orphan: ParentQueueMissing (QueueNotFound): parent queue \"nosuch\" "
                     "does not exist\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  orphan: Ready=False (QueueNotReady): see QueueReady\n"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("ControlPlaneReady"), std::string::npos) << "a healthy condition shown";
}

TEST(TenantsViewTest, ATenantWithoutStatusIsPending) {
  kube::FakeClient client;
  CreateTenant(client, R"({"apiVersion":"vtenant.io/v1alpha1","kind":"Tenant",
    "metadata":{"name":"new"},"spec":{}})");
  EXPECT_NE(Printed(PrintTenants, client).find("new    Pending   -       -"), std::string::npos)
      << Printed(PrintTenants, client);
}

TEST(TenantsViewTest, NoTenantsSaysHowToCreateThem) {
  kube::FakeClient client;
  EXPECT_NE(Printed(PrintTenants, client).find("kubectl apply -k examples/tenants"),
            std::string::npos);
}

TEST(TenantsViewTest, AMissingTenantApiIsExplained) {
  kube::FakeClient client;
  client.InjectError("list", "tenants",
                     NotFound("the server could not find the requested resource"));
  std::ostringstream out;
  Status s = PrintTenants(client, out);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("not installed"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace vtenant::cli

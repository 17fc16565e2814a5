#include "operator/tenant_reconciler.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kube/conditions.h"
#include "kube/kubeconfig.h"
#include "kube/testing/fake_client.h"
#include "operator/base64.h"
#include "operator/host_objects.h"
#include "operator/testing/fake_backend.h"
#include "operator/testing/fake_connector.h"

namespace vtenant::op {
namespace {

namespace res = kube::resources;

kube::Object Json(const std::string& text) {
  Result<kube::Object> o = kube::ParseJson(text);
  EXPECT_TRUE(o.ok()) << o.status().ToString() << " in " << text;
  return o.ok() ? std::move(o).value() : kube::Object(rapidjson::kObjectType);
}

std::string TenantJson(const std::string& name, const std::string& parent, double quota,
                       const std::string& extra_spec = "") {
  return R"({"apiVersion":"vtenant.io/v1alpha1","kind":"Tenant","metadata":{"name":")" + name +
         R"("},"spec":{"displayName":"Team )" + name +
         R"(","admins":{"users":["alice"],"groups":["nlp-admins"]},
      "queue":{"parentQueue":")" +
         parent + R"(","priority":100,"resources":{
        "gpu":{"quota":)" +
         std::to_string(quota) + R"(,"limit":1,"overQuotaWeight":1}}})" + extra_spec + "}}";
}

class TenantReconcilerTest : public testing::Test {
 protected:
  TenantReconcilerTest()
      : events_(host_, "vtenant-operator"),
        reconciler_(host_, {{Backend::kProcess, &backend_}}, connector_, events_,
                    {.registry = &registry_}) {}

  void CreateQueue(const std::string& name, double gpu_quota, const std::string& parent = "") {
    std::string json =
        R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":")" + name +
        R"("},"spec":{)" + (parent.empty() ? "" : R"("parentQueue":")" + parent + R"(",)") +
        R"("resources":{"gpu":{"quota":)" + std::to_string(gpu_quota) + "}}}}";
    ASSERT_TRUE(host_.Create(res::kQueues, "", Json(json)).ok());
  }
  void CreateTenant(const std::string& json) {
    Result<kube::Object> t = host_.Create(res::kTenants, "", Json(json));
    ASSERT_TRUE(t.ok()) << t.status().ToString();
  }
  Result<kube::ReconcileResult> Reconcile(const std::string& name) {
    return reconciler_.Reconcile(name);
  }
  kube::Object Tenant(const std::string& name) {
    Result<kube::Object> t = host_.Get(res::kTenants, "", name);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? std::move(t).value() : kube::Object(rapidjson::kObjectType);
  }
  kube::Condition Cond(const std::string& tenant, const std::string& type) {
    return kube::FindCondition(Tenant(tenant), type).value_or(kube::Condition{.type = "absent"});
  }
  bool Exists(const kube::ResourceType& type, const std::string& ns, const std::string& name) {
    return host_.Get(type, ns, name).ok();
  }
  std::vector<std::string> EventReasons() {
    std::vector<std::string> reasons;
    Result<kube::ObjectList> events = host_.List(res::kEvents, "default");
    if (events.ok()) {
      for (const auto& e : events->items) reasons.emplace_back(kube::GetString(e, {"reason"}));
    }
    return reasons;
  }
  bool HasEvent(const std::string& reason) {
    auto r = EventReasons();
    return std::find(r.begin(), r.end(), reason) != r.end();
  }

  kube::FakeClient host_;
  FakeBackend backend_;
  FakeConnector connector_;
  kube::Registry registry_;
  kube::EventRecorder events_;
  TenantReconciler reconciler_;
};

TEST_F(TenantReconcilerTest, ReferenceTenantBecomesReadyWithEverythingItNeeds) {
  CreateQueue("ml-org", 1);
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  Result<kube::ReconcileResult> r = Reconcile("nlp");
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  kube::Object tenant = Tenant("nlp");
  EXPECT_EQ(kube::GetString(tenant, {"status", "phase"}), "Ready")
      << kube::ToJson(tenant["status"]);
  EXPECT_EQ(kube::GetInt(tenant, {"status", "observedGeneration"}), kube::Generation(tenant));
  EXPECT_EQ(kube::GetString(tenant, {"status", "hostNamespace"}), "vtenant-nlp");
  EXPECT_EQ(kube::GetString(tenant, {"status", "queue"}), "nlp");
  EXPECT_EQ(kube::GetString(tenant, {"status", "kubeconfigSecret"}), "vc-nlp");
  const std::string endpoint(kube::GetString(tenant, {"status", "endpoint"}));
  EXPECT_EQ(endpoint.rfind("https://127.0.0.1:", 0), 0u);
  for (const char* type : {"ControlPlaneReady", "QueueReady", "SyncerReady", "Ready"}) {
    EXPECT_EQ(Cond("nlp", type).status, "True") << type << ": " << Cond("nlp", type).message;
  }
  EXPECT_EQ(Cond("nlp", "ParentQueueMissing").status, "False");
  EXPECT_EQ(Cond("nlp", "QuotaOvercommitted").status, "False");
  ASSERT_NE(kube::Find(tenant, {"metadata", "finalizers"}), nullptr);
  EXPECT_EQ(kube::ToJson(tenant["metadata"]["finalizers"]), R"(["vtenant.io/tenant-cleanup"])");

  Result<kube::Object> ns = host_.Get(res::kNamespaces, "", "vtenant-nlp");
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(kube::Label(*ns, "vtenant.io/tenant").value_or(""), "nlp");
  EXPECT_EQ(kube::Annotation(*ns, "vtenant.io/backend").value_or(""), "process");

  Result<kube::Object> queue = host_.Get(res::kQueues, "", "nlp");
  ASSERT_TRUE(queue.ok());
  EXPECT_EQ(kube::GetString(*queue, {"spec", "parentQueue"}), "ml-org");
  EXPECT_DOUBLE_EQ((*queue)["spec"]["resources"]["gpu"]["quota"].GetDouble(), 0.33);
  EXPECT_DOUBLE_EQ((*queue)["spec"]["resources"]["gpu"]["limit"].GetDouble(), 1);
  EXPECT_DOUBLE_EQ((*queue)["spec"]["resources"]["gpu"]["overQuotaWeight"].GetDouble(), 1);
  EXPECT_EQ(kube::GetInt(*queue, {"spec", "priority"}), 100);
  EXPECT_EQ(kube::GetString(*queue, {"spec", "displayName"}), "Team nlp");

  // The kubeconfig Secret names the backend's endpoint and the tenant's CA,
  // with the admin certificate the backend was given.
  Result<kube::Object> secret = host_.Get(res::kSecrets, "vtenant-nlp", "vc-nlp");
  ASSERT_TRUE(secret.ok());
  Result<std::string> config = DecodeBase64(kube::GetString(*secret, {"data", "config"}));
  ASSERT_TRUE(config.ok());
  Result<kube::RestConfig> parsed = kube::ParseKubeconfig(*config);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->server, endpoint);
  ControlPlaneRequest sent = backend_.Last("nlp");
  EXPECT_EQ(parsed->ca_pem, sent.certificates.ca.certificate_pem);
  EXPECT_EQ(parsed->client_certificate_pem, sent.certificates.admin.certificate_pem);
  EXPECT_EQ(sent.host_namespace, "vtenant-nlp");
  EXPECT_TRUE(Exists(res::kSecrets, "vtenant-nlp", "vc-nlp-certs"));

  EXPECT_TRUE(Exists(res::kServiceAccounts, "vtenant-nlp", "vtenant-syncer"));
  EXPECT_TRUE(Exists(res::kRoles, "vtenant-nlp", "vtenant-syncer"));
  // The syncer's host Role grants EndpointSlices exactly the verbs its
  // informer and copier use (syncer/copy_syncer.cc): no get.
  Result<kube::Object> syncer_role = host_.Get(res::kRoles, "vtenant-nlp", "vtenant-syncer");
  ASSERT_TRUE(syncer_role.ok());
  bool slices_granted = false;
  for (const rapidjson::Value& rule : (*syncer_role)["rules"].GetArray()) {
    if (kube::ToJson(rule["resources"]).find("endpointslices") == std::string::npos) continue;
    EXPECT_EQ(kube::ToJson(rule),
              R"({"apiGroups":["discovery.k8s.io"],"resources":["endpointslices"],)"
              R"("verbs":["list","watch","create","update","delete"]})");
    slices_granted = true;
  }
  EXPECT_TRUE(slices_granted);
  EXPECT_TRUE(Exists(res::kRoleBindings, "vtenant-nlp", "vtenant-syncer"));
  EXPECT_TRUE(Exists(res::kClusterRoleBindings, "", "vtenant:syncer:nlp"));
  Result<kube::Object> reader =
      host_.Get(res::kRoleBindings, "vtenant-nlp", "vc-nlp-kubeconfig-reader");
  ASSERT_TRUE(reader.ok());
  EXPECT_NE(kube::ToJson((*reader)["subjects"]).find(R"("kind":"User","name":"alice")"),
            std::string::npos);
  EXPECT_NE(kube::ToJson((*reader)["subjects"]).find(R"("kind":"Group","name":"nlp-admins")"),
            std::string::npos);
  Result<kube::Object> role = host_.Get(res::kRoles, "vtenant-nlp", "vc-nlp-kubeconfig-reader");
  ASSERT_TRUE(role.ok());
  EXPECT_EQ(
      kube::ToJson((*role)["rules"]),
      R"([{"apiGroups":[""],"resources":["secrets"],"resourceNames":["vc-nlp"],"verbs":["get"]}])");
  EXPECT_TRUE(Exists(resources::kNetworkPolicies, "vtenant-nlp", "vtenant-isolation"));

  // KAI's PodGroup CRD is in the tenant's virtual cluster.
  EXPECT_TRUE(connector_.Cluster(endpoint)
                  ->Get(res::kCustomResourceDefinitions, "", "podgroups.scheduling.run.ai")
                  .ok());
  for (const char* reason : {"NamespaceCreated", "CertificatesIssued", "QueueCreated",
                             "KubeconfigWritten", "PodGroupCrdInstalled", "Ready"}) {
    EXPECT_TRUE(HasEvent(reason)) << reason;
  }
}

TEST_F(TenantReconcilerTest, SecondPassWritesNothing) {
  CreateQueue("ml-org", 1);
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  const int writes = host_.Calls("create") + host_.Calls("update") + host_.Calls("patch");
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_EQ(host_.Calls("create") + host_.Calls("update") + host_.Calls("patch"), writes);
}

TEST_F(TenantReconcilerTest, DriftIsHealed) {
  CreateQueue("ml-org", 1);
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  ASSERT_TRUE(host_.Delete(res::kQueues, "", "nlp").ok());
  ASSERT_TRUE(host_.Delete(res::kSecrets, "vtenant-nlp", "vc-nlp").ok());
  ASSERT_TRUE(host_
                  .Patch(res::kRoles, "vtenant-nlp", "vc-nlp-kubeconfig-reader",
                         kube::PatchType::kMerge, R"({"rules":[]})")
                  .ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_TRUE(Exists(res::kQueues, "", "nlp"));
  EXPECT_TRUE(Exists(res::kSecrets, "vtenant-nlp", "vc-nlp"));
  Result<kube::Object> role = host_.Get(res::kRoles, "vtenant-nlp", "vc-nlp-kubeconfig-reader");
  EXPECT_NE(kube::ToJson((*role)["rules"]).find("vc-nlp"), std::string::npos);
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Ready");
}

TEST_F(TenantReconcilerTest, MissingParentQueueWaitsThenBecomesReady) {
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  Result<kube::ReconcileResult> r = Reconcile("nlp");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GT(r->requeue_after.count(), 0);
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Pending");
  kube::Condition missing = Cond("nlp", "ParentQueueMissing");
  EXPECT_EQ(missing.status, "True");
  EXPECT_NE(missing.message.find("parent queue ml-org does not exist"), std::string::npos);
  EXPECT_EQ(Cond("nlp", "QueueReady").status, "False");
  EXPECT_EQ(Cond("nlp", "Ready").status, "False");
  EXPECT_FALSE(Exists(res::kQueues, "", "nlp"));
  EXPECT_TRUE(HasEvent("ParentQueueMissing"));

  CreateQueue("ml-org", 1);
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_EQ(Cond("nlp", "ParentQueueMissing").status, "False");
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Ready");
}

TEST_F(TenantReconcilerTest, ChildrenAboveTheParentQuotaWarn) {
  CreateQueue("ml-org", 1);
  CreateQueue("vision", 0.8, "ml-org");
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  kube::Condition c = Cond("nlp", "QuotaOvercommitted");
  EXPECT_EQ(c.status, "True");
  EXPECT_EQ(c.reason, "ChildrenExceedParentQuota");
  EXPECT_NE(c.message.find("1.13 in total"), std::string::npos) << c.message;
  // A warning, not a failure: the tenant still works.
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Ready");
  EXPECT_TRUE(HasEvent("QuotaOvercommitted"));
}

TEST_F(TenantReconcilerTest, InvalidSpecFailsWithTheReasonAndBuildsNothing) {
  CreateTenant(TenantJson("nlp", "ml-org", 2));  // limit is 1
  Result<kube::ReconcileResult> r = Reconcile("nlp");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Failed");
  kube::Condition ready = Cond("nlp", "Ready");
  EXPECT_EQ(ready.reason, "InvalidSpec");
  EXPECT_NE(ready.message.find("quota 2 exceeds limit 1"), std::string::npos) << ready.message;
  EXPECT_FALSE(Exists(res::kNamespaces, "", "vtenant-nlp"));
  EXPECT_TRUE(HasEvent("InvalidSpec"));
}

TEST_F(TenantReconcilerTest, BackendCannotChangeUnderARunningControlPlane) {
  CreateQueue("ml-org", 1);
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  ASSERT_TRUE(host_
                  .Patch(res::kTenants, "", "nlp", kube::PatchType::kMerge,
                         R"({"spec":{"controlPlane":{"backend":"statefulset"}}})")
                  .ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  kube::Condition ready = Cond("nlp", "Ready");
  EXPECT_EQ(ready.reason, "ImmutableFieldChanged");
  EXPECT_NE(ready.message.find("spec.controlPlane.backend is immutable"), std::string::npos);
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Failed");
  EXPECT_TRUE(backend_.Running("nlp"));  // the running control plane is left alone
}

TEST_F(TenantReconcilerTest, UnreachableControlPlaneShowsTheLastError) {
  CreateQueue("ml-org", 1);
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  connector_.SetError(Unavailable("connection refused"));
  ASSERT_TRUE(Reconcile("nlp").ok());
  kube::Condition cp = Cond("nlp", "ControlPlaneReady");
  EXPECT_EQ(cp.status, "False");
  EXPECT_EQ(cp.reason, "Unreachable");
  EXPECT_NE(cp.message.find("connection refused"), std::string::npos) << cp.message;
  EXPECT_EQ(Cond("nlp", "Ready").reason, "ControlPlaneNotReady");
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Provisioning");
}

TEST_F(TenantReconcilerTest, StartingControlPlaneIsProvisioningAndRequeued) {
  CreateQueue("ml-org", 1);
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  backend_.SetReady(false);
  Result<kube::ReconcileResult> r = Reconcile("nlp");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, TenantReconcilerOptions{}.not_ready_requeue);
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Provisioning");
  EXPECT_EQ(Cond("nlp", "ControlPlaneReady").reason, "Starting");
  EXPECT_EQ(Cond("nlp", "QueueReady").status, "True");  // the queue does not wait
  backend_.SetReady(true);
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Ready");
}

TEST_F(TenantReconcilerTest, BackendErrorIsACondition) {
  CreateTenant(TenantJson("nlp", "", 0.33));
  backend_.SetError(Internal("state dir not writable"));
  ASSERT_TRUE(Reconcile("nlp").ok());
  kube::Condition cp = Cond("nlp", "ControlPlaneReady");
  EXPECT_EQ(cp.reason, "BackendError");
  EXPECT_NE(cp.message.find("state dir not writable"), std::string::npos);
}

TEST_F(TenantReconcilerTest, NetworkPolicyFollowsTheSpec) {
  CreateTenant(TenantJson("nlp", "", 0.33, R"(,"isolation":{"networkPolicy":{"enabled":true}})"));
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_TRUE(Exists(resources::kNetworkPolicies, "vtenant-nlp", "vtenant-isolation"));
  EXPECT_TRUE(Exists(resources::kNetworkPolicies, "vtenant-nlp", "vtenant-control-plane"));
  ASSERT_TRUE(host_
                  .Patch(res::kTenants, "", "nlp", kube::PatchType::kMerge,
                         R"({"spec":{"isolation":{"networkPolicy":{"enabled":false}}}})")
                  .ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_FALSE(Exists(resources::kNetworkPolicies, "vtenant-nlp", "vtenant-isolation"));
  EXPECT_FALSE(Exists(resources::kNetworkPolicies, "vtenant-nlp", "vtenant-control-plane"));
}

TEST_F(TenantReconcilerTest, DeletionRemovesEverything) {
  CreateQueue("ml-org", 1);
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  ASSERT_TRUE(host_.Delete(res::kTenants, "", "nlp").ok());  // the finalizer holds it
  ASSERT_TRUE(Exists(res::kTenants, "", "nlp"));
  Result<kube::ReconcileResult> r = Reconcile("nlp");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(Exists(res::kTenants, "", "nlp"));
  EXPECT_FALSE(Exists(res::kQueues, "", "nlp"));
  EXPECT_FALSE(Exists(res::kNamespaces, "", "vtenant-nlp"));
  EXPECT_FALSE(Exists(res::kClusterRoleBindings, "", "vtenant:syncer:nlp"));
  EXPECT_FALSE(backend_.Running("nlp"));
  EXPECT_TRUE(Exists(res::kQueues, "", "ml-org"));  // the parent stays
  EXPECT_TRUE(HasEvent("Deleted"));
  EXPECT_TRUE(Reconcile("nlp").ok());  // gone: nothing to do
}

TEST_F(TenantReconcilerTest, AForeignQueueIsRefusedNeverAdoptedAndOutlivesTheTenant) {
  CreateQueue("nlp", 1);  // someone else's queue of the same name
  const std::string before = kube::ToJson(host_.Get(res::kQueues, "", "nlp").value());
  CreateTenant(TenantJson("nlp", "", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Failed");
  kube::Condition ready = Cond("nlp", "Ready");
  EXPECT_EQ(ready.reason, "QueueTaken");
  EXPECT_NE(ready.message.find("Queue nlp exists and was not made by vtenant-operator"),
            std::string::npos)
      << ready.message;
  EXPECT_TRUE(HasEvent("QueueTaken"));
  // Nothing built, nothing taken over.
  EXPECT_FALSE(Exists(res::kNamespaces, "", "vtenant-nlp"));
  EXPECT_FALSE(backend_.Running("nlp"));
  EXPECT_EQ(kube::ToJson(host_.Get(res::kQueues, "", "nlp").value()), before);

  ASSERT_TRUE(host_.Delete(res::kTenants, "", "nlp").ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_FALSE(Exists(res::kTenants, "", "nlp"));
  EXPECT_EQ(kube::ToJson(host_.Get(res::kQueues, "", "nlp").value()), before);
}

TEST_F(TenantReconcilerTest, AForeignNamespaceIsRefusedAndOutlivesTheTenant) {
  ASSERT_TRUE(
      host_
          .Create(res::kNamespaces, "", Json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{
                              "name":"vtenant-nlp","labels":{"team":"someone-else"}}})"))
          .ok());
  ASSERT_TRUE(host_
                  .Create(res::kSecrets, "vtenant-nlp",
                          Json(R"({"apiVersion":"v1","kind":"Secret","metadata":{
                              "name":"vc-nlp","namespace":"vtenant-nlp"},"data":{"x":"eQ=="}})"))
                  .ok());
  CreateTenant(TenantJson("nlp", "", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Failed");
  EXPECT_EQ(Cond("nlp", "Ready").reason, "NamespaceTaken");
  EXPECT_TRUE(HasEvent("NamespaceTaken"));
  kube::Object ns = host_.Get(res::kNamespaces, "", "vtenant-nlp").value();
  EXPECT_FALSE(kube::Label(ns, "vtenant.io/tenant").has_value());  // not adopted
  EXPECT_FALSE(Exists(res::kQueues, "", "nlp"));
  EXPECT_FALSE(Exists(res::kServiceAccounts, "vtenant-nlp", "vtenant-syncer"));

  ASSERT_TRUE(host_.Delete(res::kTenants, "", "nlp").ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_FALSE(Exists(res::kTenants, "", "nlp"));
  EXPECT_TRUE(Exists(res::kNamespaces, "", "vtenant-nlp"));
  EXPECT_TRUE(Exists(res::kSecrets, "vtenant-nlp", "vc-nlp"));
}

TEST_F(TenantReconcilerTest, ReservedNamespacesAreRefused) {
  // The built-in ones are refused with the spec.
  CreateTenant(TenantJson("system", "", 0));
  ASSERT_TRUE(Reconcile("system").ok());
  EXPECT_EQ(Cond("system", "Ready").reason, "InvalidSpec");
  EXPECT_NE(Cond("system", "Ready").message.find("reserved"), std::string::npos);
  EXPECT_FALSE(Exists(res::kNamespaces, "", "vtenant-system"));
  // Those of this deployment (the operator's own, the reservation namespace) at run time.
  kube::Registry registry;
  TenantReconciler deployed(host_, {{Backend::kProcess, &backend_}}, connector_, events_,
                            {.registry = &registry,
                             .operator_namespace = "vtenant-ops",
                             .reserved_namespaces = {"vtenant-gpus"}});
  for (const char* name : {"ops", "gpus"}) {
    CreateTenant(TenantJson(name, "", 0));
    ASSERT_TRUE(deployed.Reconcile(name).ok());
    EXPECT_EQ(Cond(name, "Ready").reason, "ReservedName") << name;
    EXPECT_EQ(kube::GetString(Tenant(name), {"status", "phase"}), "Failed");
    EXPECT_FALSE(Exists(res::kQueues, "", name));
  }
  EXPECT_TRUE(HasEvent("ReservedName"));
}

TEST_F(TenantReconcilerTest, ForeignClusterScopedObjectsAreNotTakenOver) {
  ASSERT_TRUE(host_
                  .Create(res::kClusterRoleBindings, "",
                          Json(R"({"apiVersion":"rbac.authorization.k8s.io/v1",
                              "kind":"ClusterRoleBinding","metadata":{"name":"vtenant:syncer:nlp"},
                              "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",
                              "name":"cluster-admin"},"subjects":[]})"))
                  .ok());
  CreateTenant(TenantJson("nlp", "", 0.33));
  Result<kube::ReconcileResult> r = Reconcile("nlp");  // an error: tried again later
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition) << r.status().ToString();
  EXPECT_EQ(Cond("nlp", "ControlPlaneReady").reason, "HostObjectsFailed");
  EXPECT_NE(Cond("nlp", "ControlPlaneReady").message.find("not made by vtenant-operator"),
            std::string::npos);
  kube::Object crb = host_.Get(res::kClusterRoleBindings, "", "vtenant:syncer:nlp").value();
  EXPECT_EQ(kube::GetString(crb, {"roleRef", "name"}), "cluster-admin");
  ASSERT_TRUE(host_.Delete(res::kTenants, "", "nlp").ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_TRUE(Exists(res::kClusterRoleBindings, "", "vtenant:syncer:nlp"));
}

TEST_F(TenantReconcilerTest, TheHostNamespaceEnforcesThePodSecurityLevel) {
  CreateTenant(TenantJson("nlp", "", 0.33));
  CreateTenant(TenantJson("cv", "", 0.33, R"(,"isolation":{"podSecurity":"restricted"})"));
  CreateTenant(
      TenantJson("hpc", "", 0.33, R"(,"isolation":{"allowedPrivilegedFeatures":["hostNetwork"]})"));
  for (const char* name : {"nlp", "cv", "hpc"}) ASSERT_TRUE(Reconcile(name).ok()) << name;
  auto level = [&](const std::string& ns, const std::string& mode) {
    return std::string(kube::Label(host_.Get(res::kNamespaces, "", ns).value(),
                                   "pod-security.kubernetes.io/" + mode)
                           .value_or("(none)"));
  };
  EXPECT_EQ(level("vtenant-nlp", "enforce"), "baseline");
  EXPECT_EQ(level("vtenant-cv", "enforce"), "restricted");
  EXPECT_EQ(level("vtenant-cv", "warn"), "restricted");
  // Exceptions are the syncer's to enforce one by one; the host still warns.
  EXPECT_EQ(level("vtenant-hpc", "enforce"), "privileged");
  EXPECT_EQ(level("vtenant-hpc", "warn"), "baseline");
  EXPECT_EQ(level("vtenant-hpc", "audit"), "baseline");
}

TEST_F(TenantReconcilerTest, PhaseMetricCountsTenants) {
  CreateQueue("ml-org", 1);
  CreateTenant(TenantJson("nlp", "ml-org", 0.33));
  CreateTenant(TenantJson("vision", "missing", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  ASSERT_TRUE(Reconcile("vision").ok());
  const std::string text = registry_.Render();
  EXPECT_NE(text.find("vtenant_operator_tenants{phase=\"Ready\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("vtenant_operator_tenants{phase=\"Pending\"} 1"), std::string::npos) << text;
}

}  // namespace
}  // namespace vtenant::op

#include "operator/tenant_reconciler.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kube/base64.h"
#include "kube/conditions.h"
#include "kube/json_builder.h"
#include "kube/kubeconfig.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/json.h"
#include "operator/certificates.h"
#include "operator/host_objects.h"
#include "operator/testing/fake_backend.h"
#include "operator/testing/fake_connector.h"

namespace vtenant::op {
namespace {

namespace res = kube::resources;

using kube::Json;

// Tenant `name` under queue `parent` with `quota` GPUs; `isolation` is its
// spec.isolation as a JSON object, "" for none.
kube::Object NewTenant(const std::string& name, const std::string& parent, double quota,
                       const std::string& isolation = "") {
  kube::JsonObject spec{
      {"displayName", "Team " + name},
      {"admins", kube::JsonObject{{"users", kube::JsonArray{"alice"}},
                                  {"groups", kube::JsonArray{"nlp-admins"}}}},
      {"queue",
       kube::JsonObject{
           {"parentQueue", parent},
           {"priority", 100},
           {"resources", kube::JsonObject{{"gpu", kube::JsonObject{{"quota", quota},
                                                                   {"limit", 1},
                                                                   {"overQuotaWeight", 1}}}}}}}};
  if (!isolation.empty()) spec.Set("isolation", kube::JsonValue(Json(isolation)));
  return kube::BuildJson(kube::JsonObject{{"apiVersion", "vtenant.io/v1alpha1"},
                                          {"kind", "Tenant"},
                                          {"metadata", kube::JsonObject{{"name", name}}},
                                          {"spec", spec}});
}

class TenantReconcilerTest : public testing::Test {
 protected:
  TenantReconcilerTest()
      : events_(host_, "vtenant-operator"),
        reconciler_(host_, {{Backend::kProcess, &backend_}}, connector_, events_,
                    {.registry = &registry_,
                     .self = SubjectOfUser("system:serviceaccount:vtenant-system:vtenant-operator"),
                     .credentials_namespace = "vtenant-system"}) {}

  void CreateQueue(const std::string& name, double gpu_quota, const std::string& parent = "") {
    kube::JsonObject spec;
    if (!parent.empty()) spec.Set("parentQueue", parent);
    spec.Set("resources", kube::JsonObject{{"gpu", kube::JsonObject{{"quota", gpu_quota}}}});
    ASSERT_TRUE(
        host_
            .Create(res::kQueues, "",
                    kube::BuildJson(kube::JsonObject{{"apiVersion", "scheduling.run.ai/v2"},
                                                     {"kind", "Queue"},
                                                     {"metadata", kube::JsonObject{{"name", name}}},
                                                     {"spec", spec}}))
            .ok());
  }
  void CreateTenant(const kube::Object& tenant) {
    Result<kube::Object> t = host_.Create(res::kTenants, "", tenant);
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
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
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
  Result<std::string> config = kube::DecodeBase64(kube::GetString(*secret, {"data", "config"}));
  ASSERT_TRUE(config.ok());
  Result<kube::RestConfig> parsed = kube::ParseKubeconfig(*config);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->server, endpoint);
  ControlPlaneRequest sent = backend_.Last("nlp");
  EXPECT_EQ(parsed->ca_pem, sent.certificates.ca.certificate_pem);
  // The team's own credential: not the control plane's system:masters one.
  EXPECT_EQ(parsed->client_certificate_pem, sent.certificates.tenant_admin.certificate_pem);
  EXPECT_NE(parsed->client_certificate_pem, sent.certificates.admin.certificate_pem);
  EXPECT_TRUE(*CertificateSignedBy(parsed->client_certificate_pem,
                                   sent.certificates.tenant_admin_ca.certificate_pem));
  EXPECT_EQ(sent.host_namespace, "vtenant-nlp");
  // The CA keys stay in the operator's namespace, out of the syncer's reach.
  EXPECT_TRUE(Exists(res::kSecrets, "vtenant-system", "vc-nlp-certs"));
  EXPECT_FALSE(Exists(res::kSecrets, "vtenant-nlp", "vc-nlp-certs"));

  // The operator acts in the namespace through a binding to itself, and
  // hands the syncer the chart's roles by binding them.
  Result<kube::Object> self = host_.Get(res::kRoleBindings, "vtenant-nlp", "vtenant:operator");
  ASSERT_TRUE(self.ok());
  EXPECT_EQ(kube::ToJson((*self)["roleRef"]),
            R"({"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",)"
            R"("name":"vtenant:operator-tenant-namespace"})");
  EXPECT_EQ(
      kube::ToJson((*self)["subjects"]),
      R"([{"kind":"ServiceAccount","name":"vtenant-operator","namespace":"vtenant-system"}])");
  EXPECT_TRUE(Exists(res::kServiceAccounts, "vtenant-nlp", "vtenant-syncer"));
  Result<kube::Object> syncer = host_.Get(res::kRoleBindings, "vtenant-nlp", "vtenant:syncer");
  ASSERT_TRUE(syncer.ok());
  EXPECT_EQ(kube::GetString(*syncer, {"roleRef", "name"}), "vtenant:syncer");
  EXPECT_EQ(kube::ToJson((*syncer)["subjects"]),
            R"([{"kind":"ServiceAccount","name":"vtenant-syncer","namespace":"vtenant-nlp"}])");
  EXPECT_FALSE(Exists(res::kRoles, "vtenant-nlp", "vtenant-syncer"));
  Result<kube::Object> nodes = host_.Get(res::kClusterRoleBindings, "", "vtenant:syncer:nlp");
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(kube::GetString(*nodes, {"roleRef", "name"}), "vtenant:syncer-node-reader");
  // The operator makes no roles of its own beyond the kubeconfig reader.
  EXPECT_FALSE(Exists(res::kClusterRoles, "", "vtenant:syncer-node-reader"));
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
  EXPECT_TRUE(Exists(kube::resources::kNetworkPolicies, "vtenant-nlp", "vtenant-isolation"));

  // KAI's PodGroup CRD is in the tenant's virtual cluster, the team's group
  // is cluster-admin there, and the syncer has a ServiceAccount of its own
  // there whose token the backend was handed. The operator connected with
  // its own credential.
  std::shared_ptr<kube::FakeClient> virt = connector_.Cluster(endpoint);
  EXPECT_TRUE(virt->Get(res::kCustomResourceDefinitions, "", "podgroups.scheduling.run.ai").ok());
  Result<kube::Object> admins = virt->Get(res::kClusterRoleBindings, "", "vtenant:tenant-admins");
  ASSERT_TRUE(admins.ok());
  EXPECT_EQ(kube::GetString(*admins, {"roleRef", "name"}), "cluster-admin");
  EXPECT_NE(kube::ToJson((*admins)["subjects"]).find(R"("name":"vtenant:tenant-admins")"),
            std::string::npos);
  EXPECT_TRUE(virt->Get(res::kServiceAccounts, "kube-system", "vtenant-syncer").ok());
  EXPECT_TRUE(virt->Get(res::kClusterRoleBindings, "", "vtenant:syncer").ok());
  EXPECT_EQ(backend_.Last("nlp").syncer_virtual_token, "virtual-token-1");
  EXPECT_EQ(connector_.last_config().client_certificate_pem,
            sent.certificates.operator_client.certificate_pem);
  for (const char* reason : {"NamespaceCreated", "CertificatesIssued", "QueueCreated",
                             "KubeconfigWritten", "PodGroupCrdInstalled", "Ready"}) {
    EXPECT_TRUE(HasEvent(reason)) << reason;
  }
}

TEST_F(TenantReconcilerTest, SecondPassWritesNothing) {
  CreateQueue("ml-org", 1);
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  const int writes = host_.Calls("create") + host_.Calls("update") + host_.Calls("patch");
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_EQ(host_.Calls("create") + host_.Calls("update") + host_.Calls("patch"), writes);
}

// What an older operator made in the tenant's namespace moves out of it:
// the certificate Secret (the same CA, so every kubeconfig stays valid) and
// the syncer's own Role.
TEST_F(TenantReconcilerTest, AnOlderOperatorsObjectsAreMovedOrRemoved) {
  CreateQueue("ml-org", 1);
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  Result<kube::Object> certs = host_.Get(res::kSecrets, "vtenant-system", "vc-nlp-certs");
  ASSERT_TRUE(certs.ok());
  const std::string ca(kube::GetString(*certs, {"data", "ca.key"}));
  // As an older operator left it.
  kube::Object legacy = kube::Clone(*certs);
  kube::SetString(legacy, {"metadata"}, "namespace", "vtenant-nlp");
  legacy["metadata"].RemoveMember("resourceVersion");
  legacy["metadata"].RemoveMember("uid");
  ASSERT_TRUE(host_.Create(res::kSecrets, "vtenant-nlp", legacy).ok());
  ASSERT_TRUE(host_.Delete(res::kSecrets, "vtenant-system", "vc-nlp-certs").ok());
  ASSERT_TRUE(host_.Delete(res::kRoleBindings, "vtenant-nlp", "vtenant:syncer").ok());
  ASSERT_TRUE(host_
                  .Create(res::kRoles, "vtenant-nlp",
                          Json(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",)"
                               R"("metadata":{"name":"vtenant-syncer"},"rules":[]})"))
                  .ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  Result<kube::Object> moved = host_.Get(res::kSecrets, "vtenant-system", "vc-nlp-certs");
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(kube::GetString(*moved, {"data", "ca.key"}), ca);
  EXPECT_FALSE(Exists(res::kSecrets, "vtenant-nlp", "vc-nlp-certs"));
  EXPECT_FALSE(Exists(res::kRoles, "vtenant-nlp", "vtenant-syncer"));
  EXPECT_TRUE(Exists(res::kRoleBindings, "vtenant-nlp", "vtenant:syncer"));
  EXPECT_TRUE(HasEvent("CertificatesMoved"));
}

// A rotation asked for on the Tenant replaces the team's CA (so the API
// server refuses the old credential), writes a new kubeconfig marked with
// the rotation, and leaves the other credentials and tenants alone.
TEST_F(TenantReconcilerTest, RotationReplacesOnlyTheTeamsCredential) {
  CreateQueue("ml-org", 1);
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
  CreateTenant(NewTenant("vision", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  ASSERT_TRUE(Reconcile("vision").ok());
  const TenantCertificates before = backend_.Last("nlp").certificates;
  const TenantCertificates vision = backend_.Last("vision").certificates;
  ASSERT_TRUE(host_
                  .Patch(res::kTenants, "", "nlp", kube::PatchType::kMerge,
                         R"({"metadata":{"annotations":{"vtenant.io/rotate-credentials":"r1"}}})")
                  .ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  ASSERT_TRUE(Reconcile("vision").ok());
  const TenantCertificates after = backend_.Last("nlp").certificates;
  EXPECT_NE(after.tenant_admin_ca.certificate_pem, before.tenant_admin_ca.certificate_pem);
  EXPECT_FALSE(*CertificateSignedBy(before.tenant_admin.certificate_pem,
                                    after.tenant_admin_ca.certificate_pem));
  EXPECT_EQ(after.ca.certificate_pem, before.ca.certificate_pem);
  EXPECT_EQ(after.admin.certificate_pem, before.admin.certificate_pem);
  EXPECT_EQ(after.apiserver.certificate_pem, before.apiserver.certificate_pem);
  EXPECT_EQ(ClientCaBundle(after),
            after.ca.certificate_pem + after.tenant_admin_ca.certificate_pem);
  EXPECT_EQ(backend_.Last("vision").certificates.tenant_admin_ca.certificate_pem,
            vision.tenant_admin_ca.certificate_pem);
  Result<kube::Object> secret = host_.Get(res::kSecrets, "vtenant-nlp", "vc-nlp");
  ASSERT_TRUE(secret.ok());
  EXPECT_EQ(kube::Annotation(*secret, "vtenant.io/credentials-rotation").value_or(""), "r1");
  Result<kube::RestConfig> config =
      kube::ParseKubeconfig(*kube::DecodeBase64(kube::GetString(*secret, {"data", "config"})));
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->client_certificate_pem, after.tenant_admin.certificate_pem);
  EXPECT_TRUE(HasEvent("CredentialsRotated"));
  // Carried out once: the next pass, and one after the annotation is gone,
  // change nothing.
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_EQ(backend_.Last("nlp").certificates.tenant_admin_ca.certificate_pem,
            after.tenant_admin_ca.certificate_pem);
  ASSERT_TRUE(host_
                  .Patch(res::kTenants, "", "nlp", kube::PatchType::kMerge,
                         R"({"metadata":{"annotations":{"vtenant.io/rotate-credentials":null}}})")
                  .ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_EQ(backend_.Last("nlp").certificates.tenant_admin_ca.certificate_pem,
            after.tenant_admin_ca.certificate_pem);
}

// Pods on the real node call the API server at the node's address
// (--pod-address): its serving certificate names it, also one issued
// before the operator was told the address, which is reissued, with the
// CA and the team's credential kept.
TEST_F(TenantReconcilerTest, TheServingCertificateNamesWherePodsReachIt) {
  CreateQueue("ml-org", 1);
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  const TenantCertificates before = backend_.Last("nlp").certificates;
  EXPECT_FALSE(*CertificateCoversNames(before.apiserver.certificate_pem, {}, {"10.87.0.2"}));

  TenantReconciler on_the_node(
      host_, {{Backend::kProcess, &backend_}}, connector_, events_,
      {.registry = &registry_,
       .self = SubjectOfUser("system:serviceaccount:vtenant-system:vtenant-operator"),
       .credentials_namespace = "vtenant-system",
       .apiserver_ip_addresses = {"10.87.0.2"}});
  ASSERT_TRUE(on_the_node.Reconcile("nlp").ok());
  const TenantCertificates after = backend_.Last("nlp").certificates;
  EXPECT_TRUE(*CertificateCoversNames(after.apiserver.certificate_pem, {"kubernetes.default.svc"},
                                      {"127.0.0.1", "10.87.0.2"}));
  EXPECT_TRUE(*CertificateSignedBy(after.apiserver.certificate_pem, before.ca.certificate_pem));
  EXPECT_EQ(after.ca.certificate_pem, before.ca.certificate_pem);
  EXPECT_EQ(after.tenant_admin.certificate_pem, before.tenant_admin.certificate_pem);
}

TEST_F(TenantReconcilerTest, SyncerGetsTheHostsPriorityClassesTheTenantAllows) {
  for (const char* name : {"train", "inference", "system-cluster-critical"}) {
    ASSERT_TRUE(
        host_
            .Create(res::kPriorityClasses, "",
                    kube::BuildJson(kube::JsonObject{{"apiVersion", "scheduling.k8s.io/v1"},
                                                     {"kind", "PriorityClass"},
                                                     {"metadata", kube::JsonObject{{"name", name}}},
                                                     {"value", 100}}))
            .ok());
  }
  CreateQueue("ml-org", 1);
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
  // Naming none: every class of the host but the system ones.
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_EQ(backend_.Last("nlp").allowed_priority_classes,
            (std::vector<std::string>{"inference", "train"}));
  EXPECT_EQ(backend_.Last("nlp").scheduler_name, "kai-scheduler");
  // Naming some: only those the host really has.
  CreateTenant(
      NewTenant("vision", "ml-org", 0.33, R"({"allowedPriorityClasses":["train","vip"]})"));
  ASSERT_TRUE(Reconcile("vision").ok());
  EXPECT_EQ(backend_.Last("vision").allowed_priority_classes, std::vector<std::string>{"train"});
}

TEST_F(TenantReconcilerTest, DriftIsHealed) {
  CreateQueue("ml-org", 1);
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
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
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
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
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
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
  CreateTenant(NewTenant("nlp", "ml-org", 2));  // limit is 1
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
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
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
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
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
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
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
  CreateTenant(NewTenant("nlp", "", 0.33));
  backend_.SetError(Internal("state dir not writable"));
  ASSERT_TRUE(Reconcile("nlp").ok());
  kube::Condition cp = Cond("nlp", "ControlPlaneReady");
  EXPECT_EQ(cp.reason, "BackendError");
  EXPECT_NE(cp.message.find("state dir not writable"), std::string::npos);
}

TEST_F(TenantReconcilerTest, NetworkPolicyFollowsTheSpec) {
  CreateTenant(NewTenant("nlp", "", 0.33, R"({"networkPolicy":{"enabled":true}})"));
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_TRUE(Exists(kube::resources::kNetworkPolicies, "vtenant-nlp", "vtenant-isolation"));
  EXPECT_TRUE(Exists(kube::resources::kNetworkPolicies, "vtenant-nlp", "vtenant-control-plane"));
  ASSERT_TRUE(host_
                  .Patch(res::kTenants, "", "nlp", kube::PatchType::kMerge,
                         R"({"spec":{"isolation":{"networkPolicy":{"enabled":false}}}})")
                  .ok());
  ASSERT_TRUE(Reconcile("nlp").ok());
  EXPECT_FALSE(Exists(kube::resources::kNetworkPolicies, "vtenant-nlp", "vtenant-isolation"));
  EXPECT_FALSE(Exists(kube::resources::kNetworkPolicies, "vtenant-nlp", "vtenant-control-plane"));
}

TEST_F(TenantReconcilerTest, DeletionRemovesEverything) {
  CreateQueue("ml-org", 1);
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  ASSERT_TRUE(host_.Delete(res::kTenants, "", "nlp").ok());  // the finalizer holds it
  ASSERT_TRUE(Exists(res::kTenants, "", "nlp"));
  Result<kube::ReconcileResult> r = Reconcile("nlp");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(Exists(res::kTenants, "", "nlp"));
  EXPECT_FALSE(Exists(res::kQueues, "", "nlp"));
  EXPECT_FALSE(Exists(res::kNamespaces, "", "vtenant-nlp"));
  EXPECT_FALSE(Exists(res::kClusterRoleBindings, "", "vtenant:syncer:nlp"));
  EXPECT_FALSE(Exists(res::kSecrets, "vtenant-system", "vc-nlp-certs"));
  EXPECT_FALSE(backend_.Running("nlp"));
  EXPECT_TRUE(Exists(res::kQueues, "", "ml-org"));  // the parent stays
  EXPECT_TRUE(HasEvent("Deleted"));
  EXPECT_TRUE(Reconcile("nlp").ok());  // gone: nothing to do
}

// Once the host namespace is being deleted, the StatefulSet backend, all of
// whose objects live in it, is not asked again: the operator's RoleBinding
// there goes with the namespace, so the request would be refused.
TEST_F(TenantReconcilerTest, DeletionLeavesATerminatingNamespaceToItself) {
  FakeBackend statefulset;
  kube::Registry registry;
  TenantReconciler both(host_,
                        {{Backend::kProcess, &backend_}, {Backend::kStatefulSet, &statefulset}},
                        connector_, events_, {.registry = &registry});
  CreateQueue("ml-org", 1);
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
  ASSERT_TRUE(both.Reconcile("nlp").ok());
  // A namespace that takes a while to go: a finalizer of someone else's.
  ASSERT_TRUE(host_
                  .Patch(res::kNamespaces, "", "vtenant-nlp", kube::PatchType::kMerge,
                         R"({"metadata":{"finalizers":["example.com/slow"]}})")
                  .ok());
  ASSERT_TRUE(host_.Delete(res::kTenants, "", "nlp").ok());
  ASSERT_TRUE(both.Reconcile("nlp").ok());  // removes the control planes, deletes the namespace
  ASSERT_TRUE(kube::IsBeingDeleted(*host_.Get(res::kNamespaces, "", "vtenant-nlp")));
  EXPECT_EQ(statefulset.Removes("nlp"), 1);
  ASSERT_TRUE(both.Reconcile("nlp").ok());
  EXPECT_EQ(statefulset.Removes("nlp"), 1);
  EXPECT_EQ(backend_.Removes("nlp"), 2);
  EXPECT_TRUE(Exists(res::kTenants, "", "nlp"));  // until the namespace is gone
}

TEST_F(TenantReconcilerTest, AForeignQueueIsRefusedNeverAdoptedAndOutlivesTheTenant) {
  CreateQueue("nlp", 1);  // someone else's queue of the same name
  const std::string before = kube::ToJson(host_.Get(res::kQueues, "", "nlp").value());
  CreateTenant(NewTenant("nlp", "", 0.33));
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
  // Both backends, so the test sees which of them deletion asks: the
  // StatefulSet backend has nothing in a namespace it never had, and the
  // operator has no rights there to ask with.
  FakeBackend statefulset;
  kube::Registry registry;
  TenantReconciler both(host_,
                        {{Backend::kProcess, &backend_}, {Backend::kStatefulSet, &statefulset}},
                        connector_, events_, {.registry = &registry});
  CreateTenant(NewTenant("nlp", "", 0.33));
  ASSERT_TRUE(both.Reconcile("nlp").ok());
  EXPECT_EQ(kube::GetString(Tenant("nlp"), {"status", "phase"}), "Failed");
  EXPECT_EQ(Cond("nlp", "Ready").reason, "NamespaceTaken");
  EXPECT_TRUE(HasEvent("NamespaceTaken"));
  kube::Object ns = host_.Get(res::kNamespaces, "", "vtenant-nlp").value();
  EXPECT_FALSE(kube::Label(ns, "vtenant.io/tenant").has_value());  // not adopted
  EXPECT_FALSE(Exists(res::kQueues, "", "nlp"));
  EXPECT_FALSE(Exists(res::kServiceAccounts, "vtenant-nlp", "vtenant-syncer"));

  ASSERT_TRUE(host_.Delete(res::kTenants, "", "nlp").ok());
  ASSERT_TRUE(both.Reconcile("nlp").ok());
  EXPECT_EQ(statefulset.Removes("nlp"), 0);
  EXPECT_FALSE(Exists(res::kTenants, "", "nlp"));
  EXPECT_TRUE(Exists(res::kNamespaces, "", "vtenant-nlp"));
  EXPECT_TRUE(Exists(res::kSecrets, "vtenant-nlp", "vc-nlp"));
}

TEST_F(TenantReconcilerTest, ReservedNamespacesAreRefused) {
  // The built-in ones are refused with the spec.
  CreateTenant(NewTenant("system", "", 0));
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
    CreateTenant(NewTenant(name, "", 0));
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
  CreateTenant(NewTenant("nlp", "", 0.33));
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
  CreateTenant(NewTenant("nlp", "", 0.33));
  CreateTenant(NewTenant("cv", "", 0.33, R"({"podSecurity":"restricted"})"));
  CreateTenant(NewTenant("hpc", "", 0.33, R"({"allowedPrivilegedFeatures":["hostNetwork"]})"));
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

// Two tenants set up as in RotationReplacesOnlyTheTeamsCredential, but
// vision's queue is missing: the metric counts one Ready and one Pending.
TEST_F(TenantReconcilerTest, PhaseMetricCountsTenants) {
  CreateQueue("ml-org", 1);
  CreateTenant(NewTenant("nlp", "ml-org", 0.33));
  CreateTenant(NewTenant("vision", "missing", 0.33));
  ASSERT_TRUE(Reconcile("nlp").ok());
  ASSERT_TRUE(Reconcile("vision").ok());
  const std::string text = registry_.Render();
  EXPECT_NE(text.find("vtenant_operator_tenants{phase=\"Ready\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("vtenant_operator_tenants{phase=\"Pending\"} 1"), std::string::npos) << text;
}

}  // namespace
}  // namespace vtenant::op

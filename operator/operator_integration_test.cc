// vtenant-operator against a real host API server: the issue's "Done when".
//
// One host cluster (etcd, kube-apiserver, kube-controller-manager) for the
// suite; the operator runs as its real binary with the process backend,
// whose virtual API servers share the host's etcd under /vtenant/<t>/.
// Tests run in order and build on each other's tenants, so the machine
// runs as few API servers as the checks need.
#include <cpprest/http_client.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "base/eventually.h"
#include "base/file.h"
#include "base/testing/temp_dir.h"
#include "kube/base64.h"
#include "kube/conditions.h"
#include "kube/json_builder.h"
#include "kube/kubeconfig.h"
#include "kube/manifest.h"
#include "kube/rest_client.h"
#include "localenv/api_server.h"
#include "localenv/chart_accounts.h"
#include "localenv/command.h"
#include "localenv/environment_processes.h"
#include "localenv/process.h"
#include "localenv/testing/cluster_test.h"
#include "localenv/testing/rbac_audit.h"
#include "localenv/testing/source_tree.h"
#include "localenv/tools.h"
#include "operator/host_objects.h"
#include "operator/manifest.h"
#include "operator/statefulset_backend.h"

namespace vtenant::op {
namespace {

namespace fs = std::filesystem;
namespace res = kube::resources;
using localenv::ParseTestJson;
using std::chrono::seconds;

// The chart's release namespace: the operator's account, Lease and the
// tenants' certificate Secrets.
constexpr char kSystem[] = "vtenant-system";

// Processes running `program` with an argument containing `marker`.
int CountProcesses(const std::string& program, const std::string& marker) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (localenv::ProcessRuns(std::stoi(pid), program, marker)) ++count;
  }
  return count;
}

class OperatorIntegrationTest : public localenv::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartCluster("operator", {.node_agent = false, .manifests = localenv::CrdManifests()});
    state_dir_ = new TempDir("vtenant-operator-state");
    // The operator runs as the chart's ServiceAccount with the chart's
    // rights, as on a real cluster: a right the chart lacks fails a test.
    Status accounts = localenv::InstallChartAccounts(
        client(), {.chart_dir = localenv::SourcePath("charts/vtenant"), .ns = kSystem});
    ASSERT_TRUE(accounts.ok()) << accounts.ToString();
    Status written = localenv::WriteServiceAccountKubeconfig(
        cluster().api_server(), kSystem, "vtenant-operator", OperatorKubeconfig());
    ASSERT_TRUE(written.ok()) << written.ToString();
  }

  static std::string OperatorKubeconfig() { return state_dir_->File("operator.kubeconfig"); }

  static void TearDownTestSuite() {
    StopOperator();
    if (state_dir_ != nullptr) {
      // The operator leaves control planes running for its successor; the
      // suite is the last one, so it stops them.
      localenv::StopEnvironmentProcesses(state_dir_->path());
      delete state_dir_;
      state_dir_ = nullptr;
    }
    StopCluster();
  }

  static std::string HostKubeconfig() { return cluster().api_server().kubeconfig_path(); }

  static Result<localenv::CommandResult> Kubectl(const std::string& kubeconfig,
                                                 std::vector<std::string> args,
                                                 const std::string& input = {}) {
    VT_ASSIGN_OR_RETURN(std::string kubectl, localenv::FindTool("kubectl"));
    args.insert(args.begin(), {kubectl, "--kubeconfig=" + kubeconfig});
    return localenv::RunCommand(args, input);
  }

  static void StartOperator() {
    ASSERT_TRUE(operator_ == nullptr);
    Result<int> port = localenv::PickFreeLoopbackPort();
    ASSERT_TRUE(port.ok());
    health_port_ = *port;
    const fs::path build = fs::path(VTENANT_OPERATOR_BINARY).parent_path().parent_path();
    // $VTENANT_SYNCER_BINARY names a syncer built elsewhere (another branch).
    const fs::path syncer = getenv("VTENANT_SYNCER_BINARY") != nullptr
                                ? fs::path(getenv("VTENANT_SYNCER_BINARY"))
                                : build / "syncer" / "vtenant-syncer";
    localenv::ProcessOptions p;
    p.argv = {VTENANT_OPERATOR_BINARY,
              "--kubeconfig=" + OperatorKubeconfig(),
              "--state-dir=" + state_dir_->path(),
              "--health-address=127.0.0.1:" + std::to_string(*port),
              "--leader-elect",
              std::string("--leader-election-namespace=") + kSystem,
              std::string("--credentials-namespace=") + kSystem};
    // The syncer is another program; where it is not built the operator
    // says so in SyncerReady and these tests check the rest.
    syncer_enabled_ = fs::exists(syncer);
    p.argv.push_back(syncer_enabled_ ? "--syncer-binary=" + syncer.string() : "--no-syncer");
    p.log_path = state_dir_->path() + "/operator.log";
    Result<localenv::Process> started = localenv::Process::Start(p);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    operator_ = new localenv::Process(std::move(started).value());
  }

  // SIGKILL: no graceful shutdown, no lease release, like a crash.
  static void KillOperator() {
    if (operator_ == nullptr) return;
    kill(operator_->pid(), SIGKILL);
    operator_->Stop(std::chrono::milliseconds(0));
    delete operator_;
    operator_ = nullptr;
  }
  static void StopOperator() {
    if (operator_ == nullptr) return;
    operator_->Stop();
    delete operator_;
    operator_ = nullptr;
  }

  void CreateQueue(const std::string& name, double quota) {
    Result<kube::Object> q = client().Create(
        res::kQueues, "",
        kube::BuildJson(kube::JsonObject{
            {"apiVersion", "scheduling.run.ai/v2"},
            {"kind", "Queue"},
            {"metadata", kube::JsonObject{{"name", name}}},
            {"spec", kube::JsonObject{
                         {"resources",
                          kube::JsonObject{{"gpu", kube::JsonObject{{"quota", quota},
                                                                    {"limit", -1},
                                                                    {"overQuotaWeight", 1}}}}}}}}));
    ASSERT_TRUE(q.ok()) << q.status().ToString();
  }

  // The GPU resources of a Tenant's queue where a test names none.
  static kube::JsonObject DefaultGpu() {
    return {{"quota", 0.33}, {"limit", 1}, {"overQuotaWeight", 1}};
  }

  // A Tenant of the process backend under queue `parent`, with `gpu` its
  // queue's GPU resources and `spec_fields` further fields of its spec, as
  // text for `kubectl apply -f -` (JSON, which is YAML).
  static std::string TenantManifest(const std::string& name, const std::string& parent,
                                    kube::JsonObject gpu = DefaultGpu(),
                                    const kube::JsonObject& spec_fields = {}) {
    kube::JsonObject spec{
        {"displayName", "team " + name},
        {"admins", kube::JsonObject{{"users", kube::JsonArray{"alice"}}}},
        {"queue", kube::JsonObject{{"parentQueue", parent},
                                   {"resources", kube::JsonObject{{"gpu", std::move(gpu)}}}}},
        {"controlPlane", kube::JsonObject{{"backend", "process"}}}};
    for (const auto& [key, value] : spec_fields.members()) spec.Set(key, value);
    return kube::ToJson(
        kube::BuildJson(kube::JsonObject{{"apiVersion", "vtenant.io/v1alpha1"},
                                         {"kind", "Tenant"},
                                         {"metadata", kube::JsonObject{{"name", name}}},
                                         {"spec", std::move(spec)}}));
  }

  void ApplyTenant(const std::string& manifest) {
    Result<localenv::CommandResult> r = Kubectl(HostKubeconfig(), {"apply", "-f", "-"}, manifest);
    ASSERT_TRUE(r.ok() && r->exit_code == 0) << (r.ok() ? r->err : r.status().ToString());
  }

  std::optional<kube::Condition> Condition(const std::string& tenant, const std::string& type) {
    Result<kube::Object> t = client().Get(res::kTenants, "", tenant);
    if (!t.ok()) return std::nullopt;
    return kube::FindCondition(*t, type);
  }
  std::string Phase(const std::string& tenant) {
    Result<kube::Object> t = client().Get(res::kTenants, "", tenant);
    return t.ok() ? std::string(kube::GetString(*t, {"status", "phase"})) : "";
  }
  std::string Describe(const std::string& tenant) {
    Result<kube::Object> t = client().Get(res::kTenants, "", tenant);
    return (t.ok() ? kube::ToJson(*t) : t.status().ToString()) + "\noperator log tail:\n" +
           OperatorLogTail();
  }
  static std::string OperatorLogTail() {
    std::string log = ReadFileOrEmpty(state_dir_->path() + "/operator.log");
    return log.size() > 4000 ? log.substr(log.size() - 4000) : log;
  }

  // The tenant's kubeconfig, from its Secret, as a file kubectl can use.
  std::string KubeconfigFile(const std::string& tenant) {
    Result<kube::Object> secret = client().Get(res::kSecrets, "vtenant-" + tenant, "vc-" + tenant);
    EXPECT_TRUE(secret.ok()) << secret.status().ToString();
    if (!secret.ok()) return "";
    Result<std::string> config = kube::DecodeBase64(kube::GetString(*secret, {"data", "config"}));
    EXPECT_TRUE(config.ok());
    const std::string path = state_dir_->path() + "/" + tenant + ".kubeconfig";
    std::ofstream(path) << config.value_or("");
    return path;
  }

  // Whether a busybox pod `name` was created (or already exists) in
  // namespace default of the cluster `kubeconfig` names, trying for up to
  // two minutes while that cluster comes up.
  static bool EventuallyRunPod(const std::string& kubeconfig, const std::string& name) {
    return Eventually(
        [&] {
          Result<localenv::CommandResult> run = Kubectl(
              kubeconfig, {"run", name, "--image=busybox", "--restart=Never", "-n", "default"});
          return run.ok() &&
                 (run->exit_code == 0 || run->err.find("AlreadyExists") != std::string::npos);
        },
        seconds(120), seconds(1));
  }

  static inline TempDir* state_dir_ = nullptr;
  static inline localenv::Process* operator_ = nullptr;
  static inline int health_port_ = 0;
  static inline bool syncer_enabled_ = false;
};

// The API server refuses what the schema and CEL rules say, with their words.
TEST_F(OperatorIntegrationTest, BadTenantsAreRefusedWithTheSchemasMessage) {
  struct Case {
    std::string manifest;
    std::string message;
  };
  const std::vector<Case> cases = {
      {TenantManifest("over", "ml-org", {{"quota", 2}, {"limit", 1}}),
       "quota must not exceed limit (unless limit is -1, unlimited)"},
      {TenantManifest("negative", "ml-org", {{"quota", -0.5}, {"limit", 1}}),
       "quota must be non-negative, or -1 for unlimited"},
      {TenantManifest("not.a.label", "ml-org"), "must be a DNS label of at most 55 characters"},
      {TenantManifest("vm", "ml-org", DefaultGpu(),
                      {{"isolation", kube::JsonObject{{"allowedPrivilegedFeatures",
                                                       kube::JsonArray{"sysadmin"}}}}}),
       "Unsupported value: \"sysadmin\""},
      {TenantManifest("system", "ml-org"), "this Tenant name is reserved"},
      {TenantManifest("reservation", "ml-org"), "this Tenant name is reserved"},
  };
  for (const Case& c : cases) {
    Result<localenv::CommandResult> r = Kubectl(HostKubeconfig(), {"apply", "-f", "-"}, c.manifest);
    ASSERT_TRUE(r.ok());
    EXPECT_NE(r->exit_code, 0) << c.manifest;
    EXPECT_NE(r->err.find(c.message), std::string::npos) << r->err;
  }
  // The backend cannot change once set.
  ApplyTenant(TenantManifest("fixed", "ml-org"));
  Result<localenv::CommandResult> r =
      Kubectl(HostKubeconfig(), {"patch", "tenant", "fixed", "--type=merge", "-p",
                                 R"({"spec":{"controlPlane":{"backend":"statefulset"}}})"});
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->exit_code, 0);
  EXPECT_NE(r->err.find("controlPlane.backend is immutable"), std::string::npos) << r->err;
  // Defaults are filled in by the API server.
  Result<kube::Object> fixed = client().Get(res::kTenants, "", "fixed");
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(kube::GetInt(*fixed, {"spec", "queue", "priority"}), 100);
  EXPECT_EQ(kube::ToJson((*fixed)["spec"]["queue"]["resources"]["cpu"]),
            R"({"limit":-1,"overQuotaWeight":1,"quota":-1})");
  ASSERT_TRUE(client().Delete(res::kTenants, "", "fixed").ok());  // no operator yet: no finalizer
}

// Three teams under ml-org; the operator is killed while it creates them
// and restarted; all become Ready, nothing exists twice.
TEST_F(OperatorIntegrationTest, ThreeTenantsBecomeReadyAcrossAnOperatorCrash) {
  CreateQueue("ml-org", 1);
  const std::vector<std::string> teams = {"nlp", "vision", "recsys"};
  for (const auto& t : teams) ApplyTenant(TenantManifest(t, "ml-org"));
  StartOperator();
  // Mid-creation: a kube-apiserver has been launched (its log exists) and
  // is likely still starting, before any pid file could name it.
  ASSERT_TRUE(Eventually(
      [&] {
        for (const auto& t : teams) {
          if (fs::exists(state_dir_->path() + "/tenants/" + t + "/apiserver/kube-apiserver.log")) {
            return true;
          }
        }
        return false;
      },
      seconds(180), std::chrono::milliseconds(20)))
      << OperatorLogTail();
  KillOperator();
  StartOperator();
  for (const auto& t : teams) {
    EXPECT_TRUE(Eventually([&] { return Phase(t) == "Ready"; }, seconds(300), seconds(1)))
        << Describe(t);
  }
  for (const auto& t : teams) {
    SCOPED_TRACE(t);
    // One API server and one controller manager per tenant, adopted or started once.
    const std::string mine = state_dir_->path() + "/tenants/" + t + "/apiserver/";
    EXPECT_EQ(CountProcesses("kube-apiserver", mine), 1);
    EXPECT_EQ(CountProcesses("kube-controller-manager", mine), 1);
    Result<kube::Object> q = client().Get(res::kQueues, "", t);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(kube::GetString(*q, {"spec", "parentQueue"}), "ml-org");
    EXPECT_DOUBLE_EQ((*q)["spec"]["resources"]["gpu"]["quota"].GetDouble(), 0.33);
    EXPECT_DOUBLE_EQ((*q)["spec"]["resources"]["gpu"]["limit"].GetDouble(), 1);
    EXPECT_DOUBLE_EQ((*q)["spec"]["resources"]["gpu"]["overQuotaWeight"].GetDouble(), 1);
    EXPECT_EQ(Condition(t, "QuotaOvercommitted").value_or(kube::Condition{}).status, "False");
  }

  // Each kubeconfig works with the real kubectl, is cluster-admin, can
  // install its own CRD and sees nothing of the others.
  std::map<std::string, std::string> kubeconfigs;
  for (const auto& t : teams) kubeconfigs[t] = KubeconfigFile(t);
  for (const auto& t : teams) {
    SCOPED_TRACE(t);
    Result<localenv::CommandResult> admin = Kubectl(kubeconfigs[t], {"auth", "can-i", "*", "*"});
    ASSERT_TRUE(admin.ok());
    EXPECT_EQ(admin->out, "yes\n") << admin->err;
    Result<localenv::CommandResult> pg =
        Kubectl(kubeconfigs[t], {"get", "crd", "podgroups.scheduling.run.ai"});
    EXPECT_EQ(pg->exit_code, 0) << pg->err;
    const std::string group = t + ".example.com";
    const kube::Object crd = kube::BuildJson(kube::JsonObject{
        {"apiVersion", "apiextensions.k8s.io/v1"},
        {"kind", "CustomResourceDefinition"},
        {"metadata", kube::JsonObject{{"name", "models." + group}}},
        {"spec", kube::JsonObject{
                     {"group", group},
                     {"names", kube::JsonObject{{"kind", "Model"}, {"plural", "models"}}},
                     {"scope", "Namespaced"},
                     {"versions",
                      kube::JsonArray{kube::JsonObject{
                          {"name", "v1"},
                          {"served", true},
                          {"storage", true},
                          {"schema", kube::JsonObject{
                                         {"openAPIV3Schema",
                                          kube::JsonObject{{"type", "object"},
                                                           {"x-kubernetes-preserve-unknown-fields",
                                                            true}}}}}}}}}}});
    // JSON is YAML: kubectl reads the object as it would its manifest.
    Result<localenv::CommandResult> applied =
        Kubectl(kubeconfigs[t], {"apply", "-f", "-"}, kube::ToJson(crd));
    EXPECT_EQ(applied->exit_code, 0) << applied->err;
    Result<localenv::CommandResult> cm =
        Kubectl(kubeconfigs[t],
                {"create", "configmap", "only-" + t, "-n", "default", "--from-literal=a=b"});
    EXPECT_EQ(cm->exit_code, 0) << cm->err;
  }
  for (const auto& t : teams) {
    SCOPED_TRACE(t);
    Result<localenv::CommandResult> crds = Kubectl(kubeconfigs[t], {"get", "crd", "-o", "name"});
    Result<localenv::CommandResult> cms =
        Kubectl(kubeconfigs[t], {"get", "configmaps", "-A", "-o", "name"});
    for (const auto& other : teams) {
      const bool own = other == t;
      EXPECT_EQ(crds->out.find("models." + other + ".example.com") != std::string::npos, own)
          << crds->out;
      EXPECT_EQ(cms->out.find("only-" + other) != std::string::npos, own) << cms->out;
    }
  }

  // Drift: a queue and a kubeconfig Secret deleted by hand come back.
  ASSERT_TRUE(client().Delete(res::kQueues, "", "vision").ok());
  ASSERT_TRUE(client().Delete(res::kSecrets, "vtenant-vision", "vc-vision").ok());
  EXPECT_TRUE(Eventually(
      [&] {
        return client().Get(res::kQueues, "", "vision").ok() &&
               client().Get(res::kSecrets, "vtenant-vision", "vc-vision").ok();
      },
      seconds(120), std::chrono::milliseconds(200)))
      << Describe("vision");

  // /metrics counts them.
  web::http::client::http_client metrics("http://127.0.0.1:" + std::to_string(health_port_));
  std::string text =
      metrics.request(web::http::methods::GET, "/metrics").get().extract_utf8string(true).get();
  EXPECT_NE(text.find("vtenant_operator_tenants{phase=\"Ready\"} 3"), std::string::npos) << text;
  EXPECT_NE(text.find("vtenant_reconcile_duration_seconds"), std::string::npos);
  EXPECT_EQ(metrics.request(web::http::methods::GET, "/readyz").get().status_code(), 200);
}

// The process backend's syncer acts on the host as the tenant's own
// ServiceAccount (a token from the TokenRequest API), not with the
// operator's credentials: it syncs pods into its namespace and is refused
// everywhere else.
TEST_F(OperatorIntegrationTest, SyncerUsesItsNamespacedServiceAccountOnTheHost) {
  if (!syncer_enabled_) GTEST_SKIP() << "vtenant-syncer is not built";
  if (operator_ == nullptr) StartOperator();
  ASSERT_TRUE(Eventually([&] { return Phase("nlp") == "Ready"; }, seconds(300), seconds(1)))
      << Describe("nlp");
  const fs::path dir = state_dir_->path() + "/tenants/nlp";
  const std::string host_kubeconfig = (dir / "syncer" / "host.kubeconfig").string();
  // The running syncer was given that kubeconfig, not the operator's.
  const std::string cmdline =
      ReadFileOrEmpty("/proc/" + ReadFileOrEmpty(dir / "vtenant-syncer.pid") + "/cmdline");
  EXPECT_NE(cmdline.find("--host-kubeconfig=" + host_kubeconfig), std::string::npos) << cmdline;
  EXPECT_EQ(cmdline.find(HostKubeconfig()), std::string::npos) << cmdline;

  Result<localenv::CommandResult> whoami =
      Kubectl(host_kubeconfig, {"auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"});
  ASSERT_TRUE(whoami.ok());
  EXPECT_EQ(whoami->out, "system:serviceaccount:vtenant-nlp:vtenant-syncer") << whoami->err;

  Result<kube::RestConfig> config = kube::LoadKubeconfig(host_kubeconfig);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  Result<std::unique_ptr<kube::RestClient>> syncer = kube::RestClient::Create(*config);
  ASSERT_TRUE(syncer.ok()) << syncer.status().ToString();
  kube::Client& as_syncer = **syncer;
  // What it needs: its namespace's pods and what they reference, nodes.
  EXPECT_TRUE(as_syncer.List(res::kPods, "vtenant-nlp").ok());
  EXPECT_TRUE(as_syncer.List(res::kSecrets, "vtenant-nlp").ok());
  EXPECT_TRUE(as_syncer.List(res::kPodGroups, "vtenant-nlp").ok());
  EXPECT_TRUE(as_syncer.List(res::kNodes, "").ok());
  // Refused outside it, and for what it never does.
  auto refused = [](const Status& s) { return s.code() == StatusCode::kForbidden; };
  EXPECT_TRUE(refused(as_syncer.List(res::kPods, "vtenant-vision").status()));
  EXPECT_TRUE(refused(as_syncer.List(res::kSecrets, "").status()));
  EXPECT_TRUE(refused(as_syncer.Get(res::kSecrets, "vtenant-vision", "vc-vision").status()));
  // The tenant's CA keys are not in its namespace, and out of its reach.
  EXPECT_TRUE(refused(as_syncer.Get(res::kSecrets, kSystem, "vc-nlp-certs").status()));
  Result<kube::ObjectList> own_secrets = as_syncer.List(res::kSecrets, "vtenant-nlp");
  ASSERT_TRUE(own_secrets.ok());
  for (const kube::Object& secret : own_secrets->items) {
    EXPECT_EQ(kube::Find(secret, {"data", "ca.key"}), nullptr) << kube::Name(secret);
  }
  EXPECT_TRUE(refused(as_syncer.List(res::kTenants, "").status()));
  EXPECT_TRUE(refused(as_syncer.List(res::kQueues, "").status()));
  EXPECT_TRUE(refused(
      as_syncer
          .Create(res::kConfigMaps, "default",
                  ParseTestJson(
                      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"escape"}})"))
          .status()));
  EXPECT_TRUE(refused(as_syncer.Delete(res::kNodes, "", "any")));

  // And with it, the syncer still syncs: a team's pod reaches the host.
  const std::string kubeconfig = KubeconfigFile("nlp");
  EXPECT_TRUE(EventuallyRunPod(kubeconfig, "encoder"));
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::ObjectList> pods = client().List(
            res::kPods, "vtenant-nlp", {.label_selector = "vtenant.io/virtual-namespace=default"});
        return pods.ok() && pods->items.size() == 1;
      },
      seconds(120), seconds(1)))
      << "the syncer did not copy the pod to the host; its log: "
      << ReadFileOrEmpty(dir / "vtenant-syncer.log").substr(0, 4000);
}

// Every right each account of the chart's and the operator's holds on the
// host, as the API server reports it to that account, is in
// charts/rbac-rights.yaml with the code that uses it; and every right the
// table lists is granted (a stale table fails too).
TEST_F(OperatorIntegrationTest, EveryGrantedRightIsInTheRightsTable) {
  if (operator_ == nullptr) StartOperator();
  ASSERT_TRUE(Eventually([&] { return Phase("nlp") == "Ready"; }, seconds(300), seconds(1)))
      << Describe("nlp");
  Result<std::map<std::string, localenv::AccountRights>> table =
      localenv::LoadRightsTable(localenv::SourcePath("charts/rbac-rights.yaml"));
  ASSERT_TRUE(table.ok()) << table.status().ToString();

  // A namespace where nothing is bound: what is granted there is granted
  // everywhere. An account with no bindings says what every user may do.
  const std::string elsewhere = "vtenant-audit-elsewhere";
  for (const kube::Object& o :
       {kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                         {"kind", "Namespace"},
                                         {"metadata", kube::JsonObject{{"name", elsewhere}}}}),
        kube::BuildJson(kube::JsonObject{
            {"apiVersion", "v1"},
            {"kind", "ServiceAccount"},
            {"metadata", kube::JsonObject{{"name", "nobody"}, {"namespace", elsewhere}}}})}) {
    Status s = kube::ApplyObject(client(), o).status();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  auto as = [&](const std::string& ns, const std::string& account) -> Result<kube::RestConfig> {
    VT_ASSIGN_OR_RETURN(std::string token, localenv::ServiceAccountToken(client(), ns, account));
    kube::RestConfig config = cluster().api_server().admin_config();
    config.client_certificate_pem.clear();
    config.client_key_pem.clear();
    config.bearer_token = token;
    return config;
  };
  Result<kube::RestConfig> nobody = as(elsewhere, "nobody");
  ASSERT_TRUE(nobody.ok()) << nobody.status().ToString();
  const std::map<std::string, std::string> scopes = {{"cluster", elsewhere},
                                                     {"release", kSystem},
                                                     {"default", "default"},
                                                     {"tenant", "vtenant-nlp"}};

  for (const auto& [account, expected] : *table) {
    SCOPED_TRACE(account);
    const std::string home = expected.namespace_scope == "tenant" ? "vtenant-nlp" : kSystem;
    Result<kube::RestConfig> config = as(home, account);
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    std::set<localenv::Right> granted;
    std::set<localenv::Right> cluster_wide;
    for (const std::string scope : {"cluster", "release", "default", "tenant"}) {
      const std::string& ns = scopes.at(scope);
      Result<std::set<localenv::Right>> rights = localenv::ReviewRights(*config, ns);
      ASSERT_TRUE(rights.ok()) << rights.status().ToString();
      Result<std::set<localenv::Right>> everyone = localenv::ReviewRights(*nobody, ns);
      ASSERT_TRUE(everyone.ok()) << everyone.status().ToString();
      for (localenv::Right r : *rights) {
        if (everyone->contains(r) || (scope != "cluster" && cluster_wide.contains(r))) continue;
        if (scope == "cluster") cluster_wide.insert(r);
        r.scope = scope;
        granted.insert(r);
      }
    }
    for (const localenv::Right& r : granted) {
      EXPECT_TRUE(expected.rights.contains(r))
          << account << " may " << r.ToString()
          << ", which charts/rbac-rights.yaml does not list: no code of ours uses it, or the "
             "table must say which does";
    }
    for (const localenv::Right& r : expected.rights) {
      EXPECT_TRUE(granted.contains(r))
          << "charts/rbac-rights.yaml lists " << r.ToString() << " for " << account << " ("
          << expected.code.at(r) << "), which is not granted";
    }
  }
}

// The attacks the narrowed rights exist to stop fail on the real API server.
TEST_F(OperatorIntegrationTest, TheProgramsCannotReachBeyondTheirRights) {
  if (operator_ == nullptr) StartOperator();
  ASSERT_TRUE(Eventually([&] { return Phase("nlp") == "Ready"; }, seconds(300), seconds(1)))
      << Describe("nlp");
  auto client_for = [&](const std::string& kubeconfig) {
    Result<kube::RestConfig> config = kube::LoadKubeconfig(kubeconfig);
    EXPECT_TRUE(config.ok()) << config.status().ToString();
    return std::move(kube::RestClient::Create(*config)).value();
  };
  auto refused = [](const Status& s) {
    return s.code() == StatusCode::kForbidden || s.code() == StatusCode::kInvalid;
  };
  const std::string scheduler_kubeconfig = state_dir_->path() + "/scheduler.kubeconfig";
  ASSERT_TRUE(localenv::WriteServiceAccountKubeconfig(cluster().api_server(), kSystem,
                                                      "vtenant-scheduler", scheduler_kubeconfig)
                  .ok());
  std::unique_ptr<kube::RestClient> as_operator = client_for(OperatorKubeconfig());
  std::unique_ptr<kube::RestClient> as_scheduler = client_for(scheduler_kubeconfig);
  ASSERT_TRUE(client()
                  .Create(res::kSecrets, "kube-system",
                          ParseTestJson(R"({"apiVersion":"v1","kind":"Secret",)"
                                        R"("metadata":{"name":"crown-jewels"},"data":{}})"))
                  .ok());

  // The operator reads Secrets only where it keeps its own.
  EXPECT_TRUE(refused(as_operator->Get(res::kSecrets, "kube-system", "crown-jewels").status()));
  EXPECT_TRUE(refused(as_operator->List(res::kSecrets, "").status()));
  // It may bind its tenant role, but only in a tenant's namespace: binding
  // it to itself in kube-system is refused by the admission policy.
  const kube::Object self_binding = kube::BuildJson(kube::JsonObject{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", kube::JsonObject{{"name", "escape"}}},
      {"roleRef", kube::JsonObject{{"apiGroup", "rbac.authorization.k8s.io"},
                                   {"kind", "ClusterRole"},
                                   {"name", "vtenant:operator-tenant-namespace"}}},
      {"subjects",
       kube::JsonArray{kube::JsonObject{
           {"kind", "ServiceAccount"}, {"name", "vtenant-operator"}, {"namespace", kSystem}}}}});
  Status bound = as_operator->Create(res::kRoleBindings, "kube-system", self_binding).status();
  EXPECT_TRUE(refused(bound)) << bound.ToString();
  EXPECT_NE(bound.message().find("vtenant-operator writes only"), std::string::npos)
      << bound.ToString();
  // Nor may it bind roles it was not given to bind, in its own tenants' namespaces.
  kube::Object admin_binding = kube::Clone(self_binding);
  kube::SetString(admin_binding, {"roleRef"}, "name", "cluster-admin");
  EXPECT_TRUE(
      refused(as_operator->Create(res::kRoleBindings, "vtenant-nlp", admin_binding).status()));
  // It cannot delete a namespace that is not a tenant's.
  ASSERT_TRUE(client()
                  .Create(res::kNamespaces, "",
                          ParseTestJson(R"({"apiVersion":"v1","kind":"Namespace",)"
                                        R"("metadata":{"name":"team-database"}})"))
                  .ok());
  EXPECT_TRUE(refused(as_operator->Delete(res::kNamespaces, "", "team-database")));
  EXPECT_TRUE(client().Get(res::kNamespaces, "", "team-database").ok());
  // Tokens only for the syncer's ServiceAccount.
  EXPECT_TRUE(
      refused(localenv::ServiceAccountToken(*as_operator, "vtenant-nlp", "default").status()));
  EXPECT_TRUE(refused(
      localenv::ServiceAccountToken(*as_operator, "kube-system", "vtenant-syncer").status()));

  // The scheduler cannot make a webhook that sees every object, nor read
  // Secrets. (It lists ConfigMaps, keeping their names only, so that a pod
  // missing one waits rather than hold a GPU it cannot start on.)
  Status webhook = as_scheduler
                       ->Create(res::kMutatingWebhookConfigurations, "",
                                ParseTestJson(R"({"apiVersion":"admissionregistration.k8s.io/v1",)"
                                              R"("kind":"MutatingWebhookConfiguration",)"
                                              R"("metadata":{"name":"sees-everything"}})"))
                       .status();
  EXPECT_TRUE(refused(webhook)) << webhook.ToString();
  EXPECT_TRUE(refused(as_scheduler->Get(res::kSecrets, "kube-system", "crown-jewels").status()));
  EXPECT_TRUE(refused(as_scheduler->List(res::kSecrets, "").status()));
}

// A team's kubeconfig is a credential that can be revoked: rotating nlp's
// makes the API server refuse the old one (401) while the new one and
// vision's keep working. The team's credential is not system:masters.
TEST_F(OperatorIntegrationTest, RotatingATeamsCredentialRevokesOnlyItsOldKubeconfig) {
  if (operator_ == nullptr) StartOperator();
  for (const char* t : {"nlp", "vision"}) {
    ASSERT_TRUE(Eventually([&] { return Phase(t) == "Ready"; }, seconds(300), seconds(1)))
        << Describe(t);
  }
  const std::string old_nlp = KubeconfigFile("nlp");
  const std::string old_copy = state_dir_->path() + "/nlp-before-rotation.kubeconfig";
  fs::copy_file(old_nlp, old_copy, fs::copy_options::overwrite_existing);
  const std::string vision = KubeconfigFile("vision");
  auto works = [&](const std::string& kubeconfig) {
    Result<localenv::CommandResult> r = Kubectl(kubeconfig, {"get", "namespace", "default"});
    return r.ok() && r->exit_code == 0;
  };
  ASSERT_TRUE(works(old_copy));
  Result<localenv::CommandResult> whoami =
      Kubectl(old_copy, {"auth", "whoami", "-o", "jsonpath={.status.userInfo.groups}"});
  ASSERT_TRUE(whoami.ok());
  EXPECT_NE(whoami->out.find("vtenant:tenant-admins"), std::string::npos) << whoami->out;
  EXPECT_EQ(whoami->out.find("system:masters"), std::string::npos) << whoami->out;

  Result<localenv::CommandResult> annotated =
      Kubectl(HostKubeconfig(), {"annotate", "--overwrite", "tenant.vtenant.io", "nlp",
                                 "vtenant.io/rotate-credentials=integration-test"});
  ASSERT_TRUE(annotated.ok() && annotated->exit_code == 0)
      << (annotated.ok() ? annotated->err : annotated.status().ToString());
  const auto asked = std::chrono::steady_clock::now();
  std::string refusal;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<localenv::CommandResult> r = Kubectl(old_copy, {"get", "namespace", "default"});
        if (!r.ok() || r->exit_code == 0) return false;
        refusal = r->err;
        return true;
      },
      seconds(120), seconds(1)))
      << "the old kubeconfig still works; " << Describe("nlp");
  EXPECT_NE(refusal.find("Unauthorized"), std::string::npos) << refusal;
  std::cerr << "nlp's old kubeconfig refused "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count()
            << " s after the rotation was asked for\n";

  // The new one, once the Secret carries it, and vision's keep working.
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::Object> secret = client().Get(res::kSecrets, "vtenant-nlp", "vc-nlp");
        return secret.ok() &&
               kube::Annotation(*secret, "vtenant.io/credentials-rotation").value_or("") ==
                   "integration-test";
      },
      seconds(60), std::chrono::milliseconds(200)));
  const std::string new_nlp = KubeconfigFile("nlp");
  EXPECT_NE(ReadFileOrEmpty(new_nlp), ReadFileOrEmpty(old_copy));
  EXPECT_TRUE(Eventually([&] { return works(new_nlp); }, seconds(60), seconds(1)));
  EXPECT_TRUE(works(vision));
  EXPECT_EQ(Phase("nlp"), "Ready");
}

// The process backend's etcd holds every tenant's data; each tenant's API
// server is an etcd user of its own. An API server with nlp's etcd
// credential pointed at vision's prefix, as an attacker who took nlp's
// control plane would run it, is refused by etcd: it never becomes ready
// and etcd answers "permission denied". nlp's own runs with the same
// credential on its own prefix.
TEST_F(OperatorIntegrationTest, ATenantsEtcdCredentialCannotReadAnotherTenantsData) {
  if (operator_ == nullptr) StartOperator();
  for (const char* t : {"nlp", "vision"}) {
    ASSERT_TRUE(Eventually([&] { return Phase(t) == "Ready"; }, seconds(300), seconds(1)))
        << Describe(t);
  }
  const std::string url = ReadFileOrEmpty(state_dir_->path() + "/etcd/url");
  ASSERT_EQ(url.rfind("https://127.0.0.1:", 0), 0u) << url;
  const std::string pki = state_dir_->path() + "/tenants/nlp/apiserver/pki/";
  const localenv::EtcdClientTls nlp{pki + "etcd-ca.crt", pki + "etcd-client.crt",
                                    pki + "etcd-client.key"};
  // nlp's running kube-apiserver uses exactly that credential, on its prefix.
  const std::string cmdline = ReadFileOrEmpty(
      "/proc/" + ReadFileOrEmpty(state_dir_->path() + "/tenants/nlp/kube-apiserver.pid") +
      "/cmdline");
  EXPECT_NE(cmdline.find("--etcd-certfile=" + nlp.cert_file), std::string::npos) << cmdline;
  EXPECT_NE(cmdline.find("--etcd-prefix=/vtenant/nlp/"), std::string::npos) << cmdline;

  const std::string attacker = state_dir_->path() + "/attacker";
  Result<std::unique_ptr<localenv::ApiServer>> stolen =
      localenv::ApiServer::Start({.dir = attacker,
                                  .etcd_url = url,
                                  .etcd_tls = nlp,
                                  .etcd_prefix = "/vtenant/vision/",
                                  .name = "attacker",
                                  .extra_args = {"--etcd-compaction-interval=0"},
                                  .ready_timeout = seconds(45)});
  EXPECT_FALSE(stolen.ok()) << "an API server with nlp's etcd credential serves vision's data";
  const std::string log = ReadFileOrEmpty(attacker + "/kube-apiserver.log");
  EXPECT_NE(log.find("permission denied"), std::string::npos) << log.substr(0, 3000);
  EXPECT_EQ(Phase("vision"), "Ready");
}

// A kube-apiserver that hangs (stopped, not dead: nothing restarts it)
// shows as an unreachable control plane with the last error, and the
// tenant is Ready again once it answers.
TEST_F(OperatorIntegrationTest, AHungControlPlaneShowsUnreachableThenRecovers) {
  if (operator_ == nullptr) StartOperator();
  ASSERT_TRUE(Eventually([&] { return Phase("vision") == "Ready"; }, seconds(300), seconds(1)))
      << Describe("vision");
  const std::string pid_text =
      ReadFileOrEmpty(state_dir_->path() + "/tenants/vision/kube-apiserver.pid");
  ASSERT_FALSE(pid_text.empty());
  const int pid = std::stoi(pid_text);
  ASSERT_EQ(kill(pid, SIGSTOP), 0);
  const bool unreachable = Eventually(
      [&] {
        auto c = Condition("vision", "ControlPlaneReady");
        return c.has_value() && c->status == "False" && c->reason == "Unreachable";
      },
      seconds(120), std::chrono::milliseconds(500));
  const std::optional<kube::Condition> seen = Condition("vision", "ControlPlaneReady");
  const std::string phase = Phase("vision");
  ASSERT_EQ(kill(pid, SIGCONT), 0);  // before any assertion can end the test
  ASSERT_TRUE(unreachable) << Describe("vision");
  EXPECT_NE(phase, "Ready");
  // The message names the server and says what the last call got. Either the
  // supervisor's /readyz probe or a reconcile's call may be first to notice.
  EXPECT_NE(seen->message.find("https://127.0.0.1:"), std::string::npos) << seen->message;
  EXPECT_TRUE(seen->message.find("/readyz: ") != std::string::npos ||
              seen->message.find("no answer") != std::string::npos)
      << seen->message;
  EXPECT_EQ(Condition("vision", "Ready").value_or(kube::Condition{}).status, "False");

  EXPECT_TRUE(Eventually([&] { return Phase("vision") == "Ready"; }, seconds(120), seconds(1)))
      << Describe("vision");
  EXPECT_EQ(Condition("vision", "ControlPlaneReady")->status, "True");
  // Hung, not dead: the same process, never restarted.
  EXPECT_EQ(ReadFileOrEmpty(state_dir_->path() + "/tenants/vision/kube-apiserver.pid"), pid_text);
  EXPECT_EQ(Condition("vision", "ControlPlaneReady")->message.find("restarted"), std::string::npos);
}

TEST_F(OperatorIntegrationTest, MissingParentQueueThenReady) {
  if (operator_ == nullptr) StartOperator();
  ApplyTenant(TenantManifest("orphan", "research", {{"quota", 0.5}, {"limit", 1}}));
  ASSERT_TRUE(Eventually(
      [&] {
        return Condition("orphan", "ParentQueueMissing").value_or(kube::Condition{}).status ==
               "True";
      },
      seconds(120), std::chrono::milliseconds(200)))
      << Describe("orphan");
  EXPECT_NE(Condition("orphan", "ParentQueueMissing")->message.find("research does not exist"),
            std::string::npos);
  EXPECT_NE(Phase("orphan"), "Ready");
  CreateQueue("research", 1);
  EXPECT_TRUE(Eventually([&] { return Phase("orphan") == "Ready"; }, seconds(300), seconds(1)))
      << Describe("orphan");
  EXPECT_EQ(Condition("orphan", "ParentQueueMissing")->status, "False");
}

TEST_F(OperatorIntegrationTest, DeletionLeavesNothingBehind) {
  if (operator_ == nullptr) StartOperator();
  ASSERT_TRUE(Eventually([&] { return Phase("orphan") == "Ready"; }, seconds(300), seconds(1)))
      << Describe("orphan");
  const std::string kubeconfig = KubeconfigFile("orphan");
  // A pod of the team's, synced to the host when a syncer runs.
  EXPECT_TRUE(EventuallyRunPod(kubeconfig, "trainer"));
  auto host_pods = [&] {
    Result<kube::ObjectList> pods =
        client().List(res::kPods, "", {.label_selector = "vtenant.io/tenant=orphan"});
    return pods.ok() ? pods->items.size() : 0;
  };
  if (syncer_enabled_) {
    EXPECT_TRUE(Eventually([&] { return host_pods() == 1; }, seconds(120), seconds(1)))
        << "the syncer did not copy the pod to the host";
  }
  ASSERT_TRUE(client().Delete(res::kTenants, "", "orphan").ok());
  EXPECT_TRUE(Eventually([&] { return !client().Get(res::kTenants, "", "orphan").ok(); },
                         seconds(300), seconds(1)))
      << Describe("orphan");
  EXPECT_FALSE(client().Get(res::kNamespaces, "", "vtenant-orphan").ok());
  EXPECT_EQ(host_pods(), 0u);
  EXPECT_FALSE(client().Get(res::kQueues, "", "orphan").ok());
  EXPECT_FALSE(client().Get(res::kClusterRoleBindings, "", "vtenant:syncer:orphan").ok());
  const std::string orphan = state_dir_->path() + "/tenants/orphan/";
  EXPECT_EQ(CountProcesses("kube-apiserver", orphan), 0);
  EXPECT_EQ(CountProcesses("kube-controller-manager", orphan), 0);
  EXPECT_EQ(CountProcesses("vtenant-syncer", orphan), 0);
  EXPECT_FALSE(fs::exists(state_dir_->path() + "/tenants/orphan"));
  EXPECT_TRUE(client().Get(res::kQueues, "", "research").ok());
  // The other tenants are untouched.
  EXPECT_EQ(Phase("nlp"), "Ready");
}

// A Tenant cannot take a namespace or a queue that exists and is not the
// operator's: it is refused, nothing is adopted, and deleting the Tenant
// leaves them as they were.
TEST_F(OperatorIntegrationTest, ForeignNamespaceAndQueueAreRefusedAndOutliveTheTenant) {
  if (operator_ == nullptr) StartOperator();
  ASSERT_TRUE(client()
                  .Create(res::kNamespaces, "",
                          ParseTestJson(R"({"apiVersion":"v1","kind":"Namespace","metadata":{
                              "name":"vtenant-squatter","labels":{"owner":"payments"}}})"))
                  .ok());
  ASSERT_TRUE(client()
                  .Create(res::kConfigMaps, "vtenant-squatter",
                          ParseTestJson(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{
                              "name":"ledger","namespace":"vtenant-squatter"},"data":{"k":"v"}})"))
                  .ok());
  CreateQueue("taken", 0.5);
  const std::string queue_before =
      kube::ToJson(client().Get(res::kQueues, "", "taken").value()["spec"]);
  ApplyTenant(TenantManifest("squatter", "research"));
  ApplyTenant(TenantManifest("taken", "research"));
  for (auto [tenant, reason] :
       {std::pair{"squatter", "NamespaceTaken"}, std::pair{"taken", "QueueTaken"}}) {
    ASSERT_TRUE(Eventually(
        [&, tenant = tenant, reason = reason] {
          return Condition(tenant, "Ready").value_or(kube::Condition{}).reason == reason;
        },
        seconds(120), std::chrono::milliseconds(200)))
        << Describe(tenant);
    EXPECT_EQ(Phase(tenant), "Failed");
    EXPECT_NE(Condition(tenant, "Ready")->message.find("not made by vtenant-operator"),
              std::string::npos);
  }
  kube::Object ns = client().Get(res::kNamespaces, "", "vtenant-squatter").value();
  EXPECT_FALSE(kube::Label(ns, "vtenant.io/tenant").has_value());
  EXPECT_FALSE(client().Get(res::kQueues, "", "squatter").ok());
  EXPECT_FALSE(client().Get(res::kNamespaces, "", "vtenant-taken").ok());
  EXPECT_EQ(kube::ToJson(client().Get(res::kQueues, "", "taken").value()["spec"]), queue_before);
  EXPECT_FALSE(kube::Label(client().Get(res::kQueues, "", "taken").value(), "vtenant.io/tenant")
                   .has_value());

  for (const char* tenant : {"squatter", "taken"}) {
    ASSERT_TRUE(client().Delete(res::kTenants, "", tenant).ok());
  }
  for (const char* tenant : {"squatter", "taken"}) {
    EXPECT_TRUE(Eventually([&] { return !client().Get(res::kTenants, "", tenant).ok(); },
                           seconds(120), std::chrono::milliseconds(200)))
        << Describe(tenant);
  }
  Result<kube::Object> survived = client().Get(res::kNamespaces, "", "vtenant-squatter");
  ASSERT_TRUE(survived.ok());
  EXPECT_FALSE(kube::IsBeingDeleted(*survived));
  EXPECT_TRUE(client().Get(res::kConfigMaps, "vtenant-squatter", "ledger").ok());
  Result<kube::Object> queue = client().Get(res::kQueues, "", "taken");
  ASSERT_TRUE(queue.ok());
  EXPECT_FALSE(kube::IsBeingDeleted(*queue));
  EXPECT_EQ(kube::ToJson((*queue)["spec"]), queue_before);
}

// The host namespace is a second gate: Pod Security Admission refuses a
// privileged pod there whoever sends it (a syncer bug included), and the
// NetworkPolicies the API server accepted are in place.
TEST_F(OperatorIntegrationTest, TheHostNamespaceRefusesAPrivilegedPod) {
  if (operator_ == nullptr) StartOperator();
  ASSERT_TRUE(Eventually([&] { return Phase("nlp") == "Ready"; }, seconds(300), seconds(1)))
      << Describe("nlp");
  Result<kube::Object> ns = client().Get(res::kNamespaces, "", "vtenant-nlp");
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(kube::Label(*ns, "pod-security.kubernetes.io/enforce").value_or(""), "baseline");
  for (const char* policy : {"vtenant-isolation", "vtenant-control-plane"}) {
    EXPECT_TRUE(client().Get(kube::resources::kNetworkPolicies, "vtenant-nlp", policy).ok())
        << policy;
  }
  Result<kube::Object> privileged =
      client().Create(res::kPods, "vtenant-nlp",
                      ParseTestJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"escape",
          "namespace":"vtenant-nlp"},"spec":{"schedulerName":"kai-scheduler","containers":[{
          "name":"c","image":"busybox","securityContext":{"privileged":true}}]}})"));
  ASSERT_FALSE(privileged.ok());
  EXPECT_EQ(privileged.status().code(), StatusCode::kForbidden) << privileged.status().ToString();
  EXPECT_NE(privileged.status().message().find("PodSecurity \"baseline"), std::string::npos)
      << privileged.status().message();
  // A plain pod is admitted, so the refusal above is the level's.
  Result<kube::Object> plain =
      client().Create(res::kPods, "vtenant-nlp",
                      ParseTestJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"plain",
          "namespace":"vtenant-nlp"},"spec":{"schedulerName":"kai-scheduler","containers":[{
          "name":"c","image":"busybox"}]}})"));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  ASSERT_TRUE(
      client().Delete(res::kPods, "vtenant-nlp", "plain", {.grace_period_seconds = 0}).ok());
}

TEST_F(OperatorIntegrationTest, StatefulSetObjectsPassAServerSideDryRun) {
  ASSERT_TRUE(
      client()
          .Create(
              res::kNamespaces, "",
              ParseTestJson(
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"vtenant-dry"}})"))
          .ok());
  ControlPlaneRequest r;
  r.spec.name = "dry";
  r.spec.control_plane.backend = Backend::kStatefulSet;
  r.spec.control_plane.requests = {{"cpu", "200m"}, {"memory", "512Mi"}};
  r.spec.control_plane.limits = {{"memory", "1Gi"}};
  r.spec.isolation.node_selector = {{"pool", "cpu"}};
  r.host_namespace = "vtenant-dry";
  CertificateChanges changes;
  r.certificates = *EnsureCertificates({}, DefaultCertificatePolicy("dry", "vtenant-dry"),
                                       std::chrono::system_clock::now(), &changes);
  for (const kube::Object& o : {RenderControlPlaneService(r), RenderInternalKubeconfigSecret(r),
                                RenderControlPlaneStatefulSet(r, {})}) {
    Result<localenv::CommandResult> out = Kubectl(
        HostKubeconfig(), {"apply", "--dry-run=server", "-o", "name", "-f", "-"}, kube::ToJson(o));
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out->exit_code, 0) << out->err << "\n" << kube::ToJson(o);
    EXPECT_NE(out->out.find(std::string(kube::Name(o))), std::string::npos) << out->out;
  }
}

}  // namespace
}  // namespace vtenant::op

// The Helm chart on a kubelet: on a cluster whose one node runs containers
// (`vtenant up --real-node --cluster-only --nodes examples/nodes/none.yaml`:
// no vtenant yet, no simulated node), `helm install` of charts/vtenant with
// the image built here runs the scheduler and the operator as Deployments;
// the nlp example Tenant, applied verbatim, gets its control plane as a
// StatefulSet pod (the chart's default backend) with its PersistentVolumeClaim
// on a volume the admin provided, becomes Ready, and its team's pod runs;
// `helm upgrade` during a burst of the team's pods loses and duplicates
// none; `helm uninstall` then leaves nothing of vtenant but the CRDs it
// keeps on purpose (keepCRDsOnUninstall) and the programs' Leases, which go
// with the namespace.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "base/eventually.h"
#include "base/file.h"
#include "e2e/support/environment.h"
#include "e2e/support/kubectl.h"
#include "e2e/support/real_node.h"
#include "e2e/support/real_node_suite.h"
#include "kube/json_builder.h"
#include "kube/object.h"
#include "kube/resource.h"
#include "localenv/command.h"
#include "localenv/process.h"
#include "localenv/testing/source_tree.h"
#include "localenv/tools.h"

namespace vtenant::e2e {
namespace {
namespace fs = std::filesystem;

constexpr char kRelease[] = "vtenant";
constexpr char kReleaseNamespace[] = "vtenant-system";
// The example Tenant's host namespace and control-plane Service.
constexpr char kTenantNamespace[] = "vtenant-nlp";
constexpr char kTenantService[] = "vc-nlp";

long long SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start)
      .count();
}

class ChartOnRealNodeTest : public RealNodeSuite {
 protected:
  static void SetUpTestSuite() {
    Up(VTENANT_CLI, "chart", "examples/nodes/none.yaml", {"--real-node", "--cluster-only"});
  }

  // What the host shows about the release's and the tenant's pods, for a
  // failure message.
  static std::string Describe() {
    std::string out;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"get", "pods,pvc,statefulsets", "-A", "-o", "wide"},
          std::vector<std::string>{"get", "tenants", "-o", "yaml"},
          std::vector<std::string>{"get", "events", "-A", "--sort-by=.lastTimestamp"},
          std::vector<std::string>{"logs", "deployment/vtenant-operator", "-n", kReleaseNamespace,
                                   "--tail=30"},
          std::vector<std::string>{"logs", "deployment/vtenant-scheduler", "-n", kReleaseNamespace,
                                   "--tail=30"}}) {
      Result<std::string> got = env_->HostKubectl(args);
      out += "\n$ kubectl";
      for (const std::string& arg : args) out += " " + arg;
      out += "\n" + (got.ok() ? *got : got.status().ToString());
    }
    return out;
  }

  // The names of the cluster-scoped objects a release could leave behind.
  static Result<std::string> ClusterWide() {
    return env_->HostKubectl({"get",
                              "clusterroles,clusterrolebindings,mutatingwebhookconfigurations,"
                              "validatingwebhookconfigurations,priorityclasses",
                              "-o", "name"});
  }
};

TEST_F(ChartOnRealNodeTest, InstallRunsAStatefulSetTenantAndUninstallLeavesNothing) {
  // The image, built from this build's programs and loaded into the node.
  Result<std::vector<std::string>> refs = BuildAndLoadProgramsImage(*env_, VTENANT_BUILD_DIR);
  ASSERT_TRUE(refs.ok()) << refs.status().ToString();
  std::string vtenant_image, etcd_image;
  for (const std::string& ref : *refs) {
    if (ref.rfind("localhost/vtenant/vtenant:", 0) == 0) vtenant_image = ref;
    if (ref.rfind("localhost/vtenant/etcd:", 0) == 0) etcd_image = ref;
  }
  ASSERT_FALSE(vtenant_image.empty());
  ASSERT_FALSE(etcd_image.empty());

  // What the cluster holds cluster-wide before the chart (the node's own
  // bindings among it): after helm uninstall, exactly that again.
  Result<std::string> cluster_wide_before = ClusterWide();
  ASSERT_TRUE(cluster_wide_before.ok());

  // helm install, as on any cluster: the scheduler and the operator as
  // Deployments of the local image, the operator's StatefulSet control
  // planes from the same image under the control plane's names.
  const auto install_start = std::chrono::steady_clock::now();
  const std::string tag = vtenant_image.substr(vtenant_image.find(':') + 1);
  Result<localenv::CommandResult> installed =
      Helm(env_->host_kubeconfig(),
           {"install", kRelease, localenv::SourcePath("charts/vtenant"), "--namespace",
            kReleaseNamespace, "--create-namespace", "--set",
            "image.repository=localhost/vtenant/vtenant", "--set", "image.tag=" + tag, "--set",
            "operator.controlPlaneImages.registry=localhost/vtenant", "--set",
            "operator.controlPlaneImages.etcdImage=" + etcd_image, "--wait", "--timeout", "5m"});
  ASSERT_TRUE(installed.ok()) << installed.status().ToString();
  ASSERT_EQ(installed->exit_code, 0) << installed->out << installed->err << Describe();
  std::cout << "helm install --wait: " << SecondsSince(install_start) << " s" << std::endl;

  // The volume the control plane's claim binds to: the admin's, as on a
  // cluster without a provisioner, owned by the user the pod runs as.
  const std::string volume = env_->dir() + "/volumes/nlp-etcd";
  fs::create_directories(volume);
  ASSERT_EQ(chown(volume.c_str(), 65532, 65532), 0);
  fs::permissions(volume, fs::perms::owner_all, fs::perm_options::replace);
  const kube::Object persistent_volume = kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "PersistentVolume"},
      {"metadata", kube::JsonObject{{"name", "nlp-etcd"}}},
      {"spec",
       kube::JsonObject{{"capacity", kube::JsonObject{{"storage", "5Gi"}}},
                        {"accessModes", kube::JsonArray{"ReadWriteOnce"}},
                        {"persistentVolumeReclaimPolicy", "Retain"},
                        {"storageClassName", ""},
                        {"hostPath", kube::JsonObject{{"path", volume}, {"type", "Directory"}}}}}});
  // JSON is YAML: kubectl reads the object as it would its manifest.
  ASSERT_TRUE(env_->HostKubectl({"apply", "-f", "-"}, kube::ToJson(persistent_volume)).ok());

  // The example Tenant, verbatim: the chart's default backend is statefulset.
  const auto tenant_start = std::chrono::steady_clock::now();
  ASSERT_TRUE(env_->HostKubectl({"apply", "-f", Example("ml-org-queue.yaml")}).ok());
  ASSERT_TRUE(env_->HostKubectl({"apply", "-f", Example("nlp/tenant.yaml")}).ok());
  Status ready = env_->WaitForTeam("nlp", std::chrono::seconds(300));
  ASSERT_TRUE(ready.ok()) << ready.ToString() << Describe();
  std::cout << "StatefulSet Tenant Ready: " << SecondsSince(tenant_start) << " s" << std::endl;
  Result<std::string> backend = env_->HostKubectl(
      {"get", "statefulset", kTenantService, "-n", kTenantNamespace, "-o",
       "jsonpath={.status.readyReplicas}/{.spec.volumeClaimTemplates[0].metadata.name}"});
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  EXPECT_EQ(*backend, "1/data");
  Result<std::string> claim = env_->HostKubectl(
      {"get", "pvc", "-n", kTenantNamespace, "-o", "jsonpath={.items[0].spec.volumeName}"});
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ(*claim, "nlp-etcd");

  // The team reaches its cluster through its Service, as a user outside
  // the cluster would: port-forwarded, its kubeconfig's server name kept.
  Result<std::string> kubectl = localenv::FindTool("kubectl");
  ASSERT_TRUE(kubectl.ok());
  const std::string forward_log = env_->dir() + "/team-port-forward.log";
  Result<localenv::Process> forward = localenv::Process::Start(
      {.argv = {*kubectl, "--kubeconfig", env_->host_kubeconfig(), "-n", kTenantNamespace,
                "port-forward", std::string("service/") + kTenantService, "--address", "127.0.0.1",
                "0:443"},
       .log_path = forward_log});
  ASSERT_TRUE(forward.ok());
  const int port = ForwardedPort(forward_log);
  ASSERT_NE(port, 0) << ReadFileOrEmpty(forward_log);
  const std::vector<std::string> team = {
      "--server", "https://127.0.0.1:" + std::to_string(port), "--tls-server-name",
      std::string(kTenantService) + "." + kTenantNamespace + ".svc"};
  auto team_kubectl = [&](std::vector<std::string> args, const std::string& input = {}) {
    args.insert(args.begin(), team.begin(), team.end());
    return env_->TeamKubectl("nlp", std::move(args), input);
  };
  const std::string busybox = BusyboxImage();
  const kube::Object hello = kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", kube::JsonObject{{"name", "hello"}, {"namespace", "default"}}},
      {"spec",
       kube::JsonObject{
           {"restartPolicy", "Never"},
           {"terminationGracePeriodSeconds", 1},
           {"containers",
            kube::JsonArray{kube::JsonObject{
                {"name", "main"},
                {"image", busybox},
                {"imagePullPolicy", "IfNotPresent"},
                {"command", kube::JsonArray{"sh", "-c", "echo hello from nlp; sleep 3600"}}}}}}}});
  Result<std::string> created = team_kubectl({"apply", "-f", "-"}, kube::ToJson(hello));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Result<std::string> running = team_kubectl(
      {"wait", "--for=jsonpath={.status.phase}=Running", "pod/hello", "--timeout=180s"});
  EXPECT_TRUE(running.ok()) << running.status().ToString() << Describe();
  std::string logs;
  EXPECT_TRUE(Eventually([&] {
    Result<std::string> read = team_kubectl({"logs", "hello"});
    logs = read.ok() ? *read : read.status().ToString();
    return read.ok() && logs.find("hello from nlp") != std::string::npos;
  })) << logs;
  EXPECT_TRUE(team_kubectl({"delete", "pod", "hello", "--wait=true"}).ok());

  // helm upgrade while the team creates pods: a values change that rolls
  // the scheduler and the operator, just after a Deployment of 20 pods is
  // applied. Afterwards each of its pods has exactly one host pod, Running,
  // and nothing was made twice.
  const kube::Object burst = kube::BuildJson(kube::JsonObject{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", kube::JsonObject{{"name", "burst"}, {"namespace", "default"}}},
      {"spec",
       kube::JsonObject{
           {"replicas", 20},
           {"selector", kube::JsonObject{{"matchLabels", kube::JsonObject{{"app", "burst"}}}}},
           {"template",
            kube::JsonObject{
                {"metadata", kube::JsonObject{{"labels", kube::JsonObject{{"app", "burst"}}}}},
                {"spec",
                 kube::JsonObject{
                     {"terminationGracePeriodSeconds", 1},
                     {"containers", kube::JsonArray{kube::JsonObject{
                                        {"name", "main"},
                                        {"image", busybox},
                                        {"imagePullPolicy", "IfNotPresent"},
                                        {"command", kube::JsonArray{"sleep", "3600"}}}}}}}}}}}});
  ASSERT_TRUE(team_kubectl({"apply", "-f", "-"}, kube::ToJson(burst)).ok());
  const auto upgrade_start = std::chrono::steady_clock::now();
  Result<localenv::CommandResult> upgraded =
      Helm(env_->host_kubeconfig(),
           {"upgrade", kRelease, localenv::SourcePath("charts/vtenant"), "--namespace",
            kReleaseNamespace, "--reuse-values", "--set", "operator.tenantCredentialLifetime=25h",
            "--set", "scheduler.cyclePeriod=500ms", "--wait", "--timeout", "3m"});
  ASSERT_TRUE(upgraded.ok()) << upgraded.status().ToString();
  ASSERT_EQ(upgraded->exit_code, 0) << upgraded->out << upgraded->err << Describe();
  std::cout << "helm upgrade --wait: " << SecondsSince(upgrade_start) << " s" << std::endl;
  for (const char* deployment : {"vtenant-operator", "vtenant-scheduler"}) {
    Result<std::string> generation =
        env_->HostKubectl({"get", "deployment", deployment, "-n", kReleaseNamespace, "-o",
                           "jsonpath={.metadata.generation}"});
    ASSERT_TRUE(generation.ok());
    EXPECT_EQ(*generation, "2") << deployment << " did not roll";
  }
  Result<std::string> rolled =
      team_kubectl({"rollout", "status", "deployment/burst", "--timeout=300s"});
  EXPECT_TRUE(rolled.ok()) << rolled.status().ToString() << Describe();
  Result<std::string> virtual_uids =
      team_kubectl({"get", "pods", "-l", "app=burst", "-o",
                    "jsonpath={range .items[*]}{.metadata.uid}{\"\\n\"}{end}"});
  ASSERT_TRUE(virtual_uids.ok()) << virtual_uids.status().ToString();
  std::set<std::string> wanted;
  std::istringstream uid_lines(*virtual_uids);
  for (std::string uid; std::getline(uid_lines, uid);) {
    if (!uid.empty()) wanted.insert(uid);
  }
  EXPECT_EQ(wanted.size(), 20u) << *virtual_uids;
  Result<kube::ObjectList> host_pods =
      env_->host().List(kube::resources::kPods, kTenantNamespace, {.label_selector = "app=burst"});
  ASSERT_TRUE(host_pods.ok()) << host_pods.status().ToString();
  std::multiset<std::string> copied;
  for (const kube::Object& pod : host_pods->items) {
    copied.insert(std::string(kube::Annotation(pod, "vtenant.io/virtual-uid").value_or("")));
    EXPECT_EQ(kube::GetString(pod, {"status", "phase"}), "Running") << kube::Name(pod);
  }
  EXPECT_EQ(std::set<std::string>(copied.begin(), copied.end()), wanted);
  EXPECT_EQ(copied.size(), wanted.size()) << "a virtual pod has more than one host pod";
  EXPECT_TRUE(team_kubectl({"delete", "deployment", "burst", "--wait=true"}).ok());
  forward->Stop();

  // Gone again: the Tenant (its namespace, StatefulSet and claim), then the
  // release, leaving nothing of vtenant but the CRDs it keeps on purpose.
  EXPECT_TRUE(env_->HostKubectl({"delete", "tenant", "nlp", "--wait=true", "--timeout=180s"}).ok())
      << Describe();
  EXPECT_TRUE(Eventually(
      [] {
        return !env_->HostKubectl({"get", "namespace", kTenantNamespace}).ok();
      },
      std::chrono::seconds(120)))
      << Describe();
  EXPECT_TRUE(env_->HostKubectl({"delete", "-f", Example("ml-org-queue.yaml")}).ok());
  Result<localenv::CommandResult> uninstalled =
      Helm(env_->host_kubeconfig(),
           {"uninstall", kRelease, "--namespace", kReleaseNamespace, "--wait", "--timeout", "3m"});
  ASSERT_TRUE(uninstalled.ok());
  EXPECT_EQ(uninstalled->exit_code, 0) << uninstalled->out << uninstalled->err;
  // The Deployments' pods stop after helm returns (each within its grace
  // period).
  EXPECT_TRUE(Eventually(
      [] {
        Result<std::string> pods =
            env_->HostKubectl({"get", "pods", "-n", kReleaseNamespace, "-o", "name"});
        return pods.ok() && pods->empty();
      },
      std::chrono::seconds(90)))
      << Describe();
  Result<std::string> left = env_->HostKubectl(
      {"get",
       "all,serviceaccounts,secrets,configmaps,roles,rolebindings,leases,networkpolicies,"
       "poddisruptionbudgets",
       "-n", kReleaseNamespace, "-o", "name"});
  ASSERT_TRUE(left.ok());
  // What every namespace has (its default account, the cluster's CA) and
  // the programs' leader-election Leases: runtime state, not the release's,
  // as every controller's are. Helm deletes the release's RBAC while the
  // pods are still stopping, so a program cannot even release its Lease;
  // the Leases expire, and go with the namespace.
  std::istringstream objects(*left);
  for (std::string object; std::getline(objects, object);) {
    EXPECT_TRUE(object == "serviceaccount/default" || object == "configmap/kube-root-ca.crt" ||
                object == "lease.coordination.k8s.io/vtenant-operator" ||
                object == "lease.coordination.k8s.io/vtenant-scheduler")
        << object << " is left in " << kReleaseNamespace;
  }
  EXPECT_TRUE(env_->HostKubectl({"delete", "namespace", kReleaseNamespace, "--timeout=60s"}).ok());
  Result<std::string> cluster_wide = ClusterWide();
  ASSERT_TRUE(cluster_wide.ok());
  EXPECT_EQ(*cluster_wide, *cluster_wide_before);
  // The CRDs stay (Helm never deletes them), the Queues do not.
  Result<std::string> queues = env_->HostKubectl({"get", "queues", "-o", "name"});
  ASSERT_TRUE(queues.ok());
  EXPECT_EQ(*queues, "");
  Result<std::string> crds = env_->HostKubectl({"get", "crd", "-o", "name"});
  ASSERT_TRUE(crds.ok());
  EXPECT_NE(crds->find("tenants.vtenant.io"), std::string::npos) << *crds;
  EXPECT_TRUE(env_->HostKubectl({"delete", "pv", "nlp-etcd"}).ok());
}

}  // namespace
}  // namespace vtenant::e2e

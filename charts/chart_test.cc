// Integration: charts/vtenant lints, renders what its values say, grants no
// wildcard permissions, and its manifests pass a server-side dry run and a
// real install, upgrade and uninstall on a real API server.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "e2e/support/kubectl.h"
#include "localenv/testing/cluster_test.h"
#include "localenv/testing/source_tree.h"

namespace vtenant {
namespace {

constexpr char kNamespace[] = "vtenant-system";
// What helm template assumes about the cluster when it cannot ask one.
constexpr char kKubeVersion[] = "1.37.2";

std::string Chart() { return localenv::SourcePath("charts/vtenant"); }

std::string Str(const YAML::Node& node) { return node && node.IsScalar() ? node.Scalar() : ""; }

// `helm template` with `--set` values; fails the test when helm fails.
std::vector<YAML::Node> Render(const std::vector<std::string>& sets, std::string* error = nullptr) {
  std::vector<std::string> args = {"template", "vtenant",        Chart(),     "--namespace",
                                   kNamespace, "--kube-version", kKubeVersion};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  Result<localenv::CommandResult> r = e2e::Helm("", args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  if (r->exit_code != 0) {
    if (error != nullptr) {
      *error = r->err;
    } else {
      ADD_FAILURE() << "helm template failed: " << r->err;
    }
    return {};
  }
  std::vector<YAML::Node> docs;
  for (const YAML::Node& doc : YAML::LoadAll(r->out)) {
    if (doc.IsMap()) docs.push_back(doc);
  }
  return docs;
}

std::set<std::string> KindsAndNames(const std::vector<YAML::Node>& docs) {
  std::set<std::string> out;
  for (const YAML::Node& d : docs) out.insert(Str(d["kind"]) + "/" + Str(d["metadata"]["name"]));
  return out;
}

const YAML::Node* FindObject(const std::vector<YAML::Node>& docs, const std::string& kind,
                             const std::string& name) {
  for (const YAML::Node& d : docs) {
    if (Str(d["kind"]) == kind && Str(d["metadata"]["name"]) == name) return &d;
  }
  return nullptr;
}

TEST(ChartRenderTest, LintsCleanWithEachKaiSetting) {
  for (const std::vector<std::string>& sets : std::vector<std::vector<std::string>>{
           {}, {"kai.installed=true", "scheduler.enabled=false"}}) {
    std::vector<std::string> args = {"lint", "--strict", Chart()};
    for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
    Result<localenv::CommandResult> r = e2e::Helm("", args);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
  }
}

TEST(ChartRenderTest, DefaultsRenderOperatorSchedulerAndKaiCrds) {
  std::set<std::string> objects = KindsAndNames(Render({}));
  for (const std::string expected :
       {"Deployment/vtenant-operator", "Deployment/vtenant-scheduler",
        "ServiceAccount/vtenant-operator", "ServiceAccount/vtenant-scheduler",
        "ClusterRole/vtenant-operator", "ClusterRole/vtenant-scheduler",
        "Secret/vtenant-scheduler-webhook-tls", "Service/vtenant-scheduler-webhook",
        "Service/vtenant-operator-metrics", "Service/vtenant-scheduler-metrics",
        "CustomResourceDefinition/queues.scheduling.run.ai",
        "CustomResourceDefinition/podgroups.scheduling.run.ai",
        "CustomResourceDefinition/topologies.kai.scheduler"}) {
    EXPECT_TRUE(objects.contains(expected)) << expected;
  }
  std::vector<YAML::Node> docs = Render({});
  const YAML::Node* queues =
      FindObject(docs, "CustomResourceDefinition", "queues.scheduling.run.ai");
  ASSERT_NE(queues, nullptr);
  EXPECT_EQ(Str((*queues)["metadata"]["annotations"]["helm.sh/resource-policy"]), "keep");
  // The anchors of the source file are expanded, not lost.
  EXPECT_EQ(Str((*queues)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                         ["properties"]["resources"]["properties"]["memory"]["properties"]["quota"]
                         ["type"]),
            "number");
}

TEST(ChartRenderTest, SchedulerIsOptionalAndKaiCrdsFollowKaiInstalled) {
  std::set<std::string> objects =
      KindsAndNames(Render({"kai.installed=true", "scheduler.enabled=false"}));
  EXPECT_TRUE(objects.contains("Deployment/vtenant-operator"));
  for (const std::string& o : objects) {
    EXPECT_EQ(o.find("scheduler"), std::string::npos) << o << " rendered with the scheduler off";
    EXPECT_EQ(o.find("scheduling.run.ai"), std::string::npos)
        << o << " rendered with KAI installed";
    EXPECT_EQ(o.find("topologies.kai.scheduler"), std::string::npos)
        << o << " rendered with KAI installed";
  }
}

// KAI's classes, with KAI's values: workloads written for KAI name them, and
// a PodGroup's priority is its class's.
TEST(ChartRenderTest, KaisPriorityClassesComeUnlessKaiOrTheClusterHasThem) {
  std::vector<YAML::Node> docs = Render({});
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"train", "50"}, {"build-preemptible", "75"}, {"build", "100"}, {"inference", "125"}}) {
    const YAML::Node* c = FindObject(docs, "PriorityClass", name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(Str((*c)["value"]), value) << name;
    EXPECT_FALSE((*c)["globalDefault"]) << name << " must not change other pods' priority";
  }
  for (const std::vector<std::string>& sets :
       std::vector<std::vector<std::string>>{{"defaultPriorityClasses.enabled=false"},
                                             {"kai.installed=true", "scheduler.enabled=false"}}) {
    for (const std::string& o : KindsAndNames(Render(sets)))
      EXPECT_FALSE(o.starts_with("PriorityClass/")) << o << " rendered with " << sets.front();
  }
}

TEST(ChartRenderTest, TwoSchedulersUnderKaisNameIsRefused) {
  std::string error;
  EXPECT_TRUE(Render({"kai.installed=true"}, &error).empty());
  EXPECT_NE(error.find("scheduler.enabled=false"), std::string::npos) << error;
  std::set<std::string> objects =
      KindsAndNames(Render({"kai.installed=true", "scheduler.schedulerName=vtenant"}));
  EXPECT_TRUE(objects.contains("Deployment/vtenant-scheduler"));
}

TEST(ChartRenderTest, NoRoleGrantsWildcardsAndOnlyVtenantsOwnRolesCanBeBound) {
  std::vector<YAML::Node> docs = Render({});
  const std::set<std::string> bindable = {"vtenant:operator-tenant-namespace", "vtenant:syncer",
                                          "vtenant:syncer-node-reader"};
  int roles = 0;
  for (const YAML::Node& d : docs) {
    const std::string kind = Str(d["kind"]);
    if (kind != "ClusterRole" && kind != "Role") continue;
    ++roles;
    for (const YAML::Node& rule : d["rules"]) {
      for (const char* field : {"verbs", "resources", "apiGroups"}) {
        for (const YAML::Node& v : rule[field]) {
          EXPECT_NE(Str(v), "*") << kind << " " << Str(d["metadata"]["name"]) << " " << field;
        }
      }
      for (const YAML::Node& verb : rule["verbs"]) {
        if (Str(verb) != "bind" && Str(verb) != "escalate" && Str(verb) != "impersonate") continue;
        EXPECT_EQ(Str(verb), "bind") << Str(d["metadata"]["name"]);
        ASSERT_TRUE(rule["resourceNames"]) << "unrestricted bind in " << Str(d["metadata"]["name"]);
        for (const YAML::Node& name : rule["resourceNames"]) {
          EXPECT_TRUE(bindable.contains(Str(name))) << Str(name);
        }
      }
      // Tokens of one ServiceAccount only, by name.
      for (const YAML::Node& resource : rule["resources"]) {
        if (Str(resource) == "serviceaccounts/token") {
          EXPECT_TRUE(rule["resourceNames"])
              << "tokens of any account in " << Str(d["metadata"]["name"]);
        }
      }
    }
  }
  EXPECT_GE(roles, 3);
}

// Nothing bound cluster-wide reads or writes Secrets, and no program may
// create a webhook configuration: the chart makes the scheduler's.
TEST(ChartRenderTest, ClusterWideRolesTouchNoSecretsAndCreateNoWebhooks) {
  std::vector<YAML::Node> docs = Render({});
  std::set<std::string> bound_cluster_wide;
  for (const YAML::Node& d : docs) {
    if (Str(d["kind"]) == "ClusterRoleBinding") {
      bound_cluster_wide.insert(Str(d["roleRef"]["name"]));
    }
  }
  EXPECT_TRUE(bound_cluster_wide.contains("vtenant-operator"));
  for (const YAML::Node& d : docs) {
    if (Str(d["kind"]) != "ClusterRole") continue;
    const std::string name = Str(d["metadata"]["name"]);
    for (const YAML::Node& rule : d["rules"]) {
      for (const YAML::Node& resource : rule["resources"]) {
        if (bound_cluster_wide.contains(name)) {
          EXPECT_NE(Str(resource), "secrets") << name;
        }
        if (Str(resource) != "mutatingwebhookconfigurations") continue;
        for (const YAML::Node& verb : rule["verbs"]) EXPECT_NE(Str(verb), "create") << name;
        EXPECT_TRUE(rule["resourceNames"]) << name;
      }
    }
  }
  const YAML::Node* webhook = FindObject(docs, "MutatingWebhookConfiguration", "vtenant-scheduler");
  ASSERT_NE(webhook, nullptr);
  // The scheduler fills in its webhooks; an upgrade must not empty them.
  EXPECT_FALSE((*webhook)["webhooks"]);
  EXPECT_NE(FindObject(docs, "ValidatingAdmissionPolicy", "vtenant-operator-scope"), nullptr);
}

class ChartClusterTest : public localenv::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartCluster("chart", {.controller_manager = false, .node_agent = false}, {kNamespace});
  }
  static void TearDownTestSuite() { StopCluster(); }
  static std::string kubeconfig() { return cluster().api_server().kubeconfig_path(); }
};

TEST_F(ChartClusterTest, RenderedManifestsPassServerSideDryRun) {
  for (const std::vector<std::string>& sets : std::vector<std::vector<std::string>>{
           {},
           {"scheduler.webhook.enabled=false", "scheduler.policy=spread",
            "scheduler.defaultStalenessGracePeriod=-1s", "scheduler.restrictNodeScheduling=true",
            "scheduler.partitionLabelValue=a100", "scheduler.timeBasedFairshare.windowSize=7d",
            "scheduler.timeBasedFairshare.halfLifePeriod=10m",
            "scheduler.timeBasedFairshare.kValue=0.5",
            "scheduler.timeBasedFairshare.windowType=tumbling",
            "scheduler.timeBasedFairshare.tumblingWindowStartTime=2026-12-07T00:00:00Z"},
           {"scheduler.webhook.blockNvidiaVisibleDevices=true", "scheduler.webhook.hamiCore=true",
            "scheduler.webhook.quotaValidation=true"},
           {"scheduler.timeBasedFairshare.windowType=cron",
            "scheduler.timeBasedFairshare.cronString=0 0 * * 1"}}) {
    std::vector<std::string> args = {"template", "vtenant",        Chart(),          "--namespace",
                                     kNamespace, "--include-crds", "--kube-version", kKubeVersion};
    for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
    Result<localenv::CommandResult> rendered = e2e::Helm("", args);
    ASSERT_TRUE(rendered.ok()) << rendered.status().ToString();
    ASSERT_EQ(rendered->exit_code, 0) << rendered->err;
    if (sets.size() > 3) {
      EXPECT_NE(rendered->out.find("--default-staleness-grace-period=-1s"), std::string::npos);
      EXPECT_NE(rendered->out.find("--restrict-node-scheduling\n"), std::string::npos);
      EXPECT_NE(
          rendered->out.find("--gpu-worker-node-label-key=node-role.kubernetes.io/gpu-worker"),
          std::string::npos);
      EXPECT_NE(rendered->out.find("--partition-label-value=a100\n"), std::string::npos);
      for (const char* flag :
           {"--usage-window=7d\n", "--usage-half-life=10m\n", "--usage-k=0.5\n",
            "--usage-window-type=tumbling\n", "--usage-window-start=2026-12-07T00:00:00Z\n"})
        EXPECT_NE(rendered->out.find(flag), std::string::npos) << flag;
      EXPECT_EQ(rendered->out.find("--usage-resolution"), std::string::npos);
    } else if (sets.size() == 2) {
      // A cron window is on without a window size, as KAI's.
      EXPECT_NE(rendered->out.find("--usage-window-type=cron\n"), std::string::npos);
      EXPECT_NE(rendered->out.find("\"--usage-cron=0 0 * * 1\"\n"), std::string::npos)
          << rendered->out;
      EXPECT_EQ(rendered->out.find("--usage-window="), std::string::npos);
    } else if (sets.size() == 3) {
      EXPECT_NE(rendered->out.find("--block-nvidia-visible-devices\n"), std::string::npos);
      EXPECT_NE(rendered->out.find("--hami-core\n"), std::string::npos);
      EXPECT_NE(rendered->out.find("--enable-quota-validation\n"), std::string::npos);
    } else {
      EXPECT_EQ(rendered->out.find("--restrict-node-scheduling"), std::string::npos);
      EXPECT_EQ(rendered->out.find("--usage-window"), std::string::npos) << "off by default";
      EXPECT_EQ(rendered->out.find("--partition-label-value"), std::string::npos);
      EXPECT_EQ(rendered->out.find("--nodepool-label-key"), std::string::npos);
      EXPECT_EQ(rendered->out.find("--block-nvidia-visible-devices"), std::string::npos);
      EXPECT_EQ(rendered->out.find("--hami-core"), std::string::npos);
      EXPECT_EQ(rendered->out.find("--enable-quota-validation"), std::string::npos);
    }
    Result<std::string> dry =
        e2e::KubectlOk(kubeconfig(), {"apply", "--dry-run=server", "-f", "-"}, rendered->out);
    ASSERT_TRUE(dry.ok()) << dry.status().ToString();
    EXPECT_NE(dry->find("deployment.apps/vtenant-operator created (server dry run)"),
              std::string::npos)
        << *dry;
  }
}

// `helm <args>` against `kubeconfig`; fails the test when helm cannot run
// or fails.
void HelmOk(const std::string& kubeconfig, const std::vector<std::string>& args) {
  Result<localenv::CommandResult> r = e2e::Helm(kubeconfig, args);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->exit_code, 0) << r->err;
}

TEST_F(ChartClusterTest, InstallsUpgradesAndUninstallsKeepingTheKaiCrds) {
  auto helm_with_webhook = [&](const std::string& verb) {
    HelmOk(kubeconfig(), {verb, "vtenant", Chart(), "--namespace", kNamespace, "--set",
                          "scheduler.webhook.enabled=true"});
  };
  auto webhook_ca = [&] {
    return e2e::KubectlOk(kubeconfig(),
                          {"-n", kNamespace, "get", "secret", "vtenant-scheduler-webhook-tls", "-o",
                           "jsonpath={.data.ca\\.crt}"});
  };
  ASSERT_NO_FATAL_FAILURE(helm_with_webhook("install"));
  Result<std::string> ca = webhook_ca();
  ASSERT_TRUE(ca.ok()) << ca.status().ToString();
  EXPECT_FALSE(ca->empty());

  ASSERT_NO_FATAL_FAILURE(helm_with_webhook("upgrade"));
  Result<std::string> ca_after = webhook_ca();
  ASSERT_TRUE(ca_after.ok()) << ca_after.status().ToString();
  EXPECT_EQ(*ca_after, *ca) << "an upgrade replaced the webhook's certificate";

  ASSERT_NO_FATAL_FAILURE(
      HelmOk(kubeconfig(), {"uninstall", "vtenant", "--namespace", kNamespace}));
  EXPECT_TRUE(e2e::KubectlOk(kubeconfig(), {"get", "crd", "queues.scheduling.run.ai"}).ok())
      << "uninstall deleted the Queue CRD and with it every queue";
  EXPECT_FALSE(
      e2e::KubectlOk(kubeconfig(), {"-n", kNamespace, "get", "deployment", "vtenant-operator"})
          .ok());
}

}  // namespace
}  // namespace vtenant

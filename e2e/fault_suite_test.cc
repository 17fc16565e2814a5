// The fault suite: in the middle of a burst of 310 pods created in nlp's
// virtual cluster (a Deployment of 250 and a Job of 60 completions), one
// program of the system is killed with SIGKILL: nlp's syncer, the
// scheduler, the operator, nlp's API server, the host API server, the
// host's etcd. Whoever supervises it (the local environment's supervisor,
// or the operator for a tenant's processes) starts it again, and then:
// every virtual pod has exactly one host pod (one per virtual UID, none
// left over), the Deployment's pods are bound and Running, the Job
// completed exactly once with exactly its 60 pods, and the queue's
// allocated CPU is that of the Running pods. Each case prints how long the
// system took to converge. And `vtenant down` then `vtenant up` keeps the
// Tenants, the team's kubeconfig and its pods, the very same objects.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "base/eventually.h"
#include "cli/environment_state.h"
#include "e2e/support/environment.h"
#include "e2e/support/kubectl.h"
#include "kube/json_builder.h"
#include "kube/kubeconfig.h"
#include "kube/object.h"
#include "kube/quantity.h"
#include "kube/rest_client.h"
#include "localenv/environment_processes.h"
#include "localenv/testing/source_tree.h"

namespace vtenant::e2e {
namespace {
namespace res = kube::resources;
namespace fs = std::filesystem;

constexpr char kTeam[] = "nlp";
constexpr char kHostNamespace[] = "vtenant-nlp";
constexpr int kReplicas = 250;
constexpr int kCompletions = 60;
constexpr int kPodMilliCpu = 10;

std::unique_ptr<Environment> shared_env;
std::unique_ptr<kube::RestClient> team_client;

// What is killed, and how to find its pid now.
struct Fault {
  std::string name;                             // test-name friendly
  std::function<Result<pid_t>()> find_process;  // the one to kill
};

// The pid the local environment's record gives `component`.
Result<pid_t> RecordedPid(const std::string& component) {
  VT_ASSIGN_OR_RETURN(cli::EnvironmentState state, cli::EnvironmentState::Load(shared_env->dir()));
  const cli::ComponentRecord* record = state.Find(component);
  if (record == nullptr || record->pid <= 0) return NotFound(component + " is not running");
  return record->pid;
}

// The pid of `program` working for tenant `team` (its command line names
// the tenant's folder under the operator's state folder).
Result<pid_t> TenantPid(const std::string& program, const std::string& team) {
  const std::string folder = "/tenants/" + team + "/";
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline");
    std::stringstream cmdline;
    cmdline << in.rdbuf();
    const std::string text = cmdline.str();
    if (fs::path(text.substr(0, text.find('\0'))).filename() != program) continue;
    if (text.find(shared_env->dir()) == std::string::npos) continue;
    if (text.find(folder) == std::string::npos) continue;
    return static_cast<pid_t>(std::stoi(pid));
  }
  return NotFound(program + " of tenant " + team + " is not running");
}

// The burst: a Deployment of kReplicas pods and a Job of kCompletions, in
// namespace `ns`, as one List that kubectl applies item by item.
kube::Object Workloads(const std::string& ns) {
  const kube::JsonArray containers{kube::JsonObject{
      {"name", "main"},
      {"image", "busybox"},
      {"resources",
       kube::JsonObject{{"requests", kube::JsonObject{{"cpu", std::to_string(kPodMilliCpu) + "m"},
                                                      {"memory", "16Mi"}}}}}}};
  kube::JsonObject deployment{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", kube::JsonObject{{"name", "burst"}, {"namespace", ns}}},
      {"spec",
       kube::JsonObject{
           {"replicas", kReplicas},
           {"selector", kube::JsonObject{{"matchLabels", kube::JsonObject{{"app", "burst"}}}}},
           {"template",
            kube::JsonObject{
                {"metadata", kube::JsonObject{{"labels", kube::JsonObject{{"app", "burst"}}}}},
                {"spec", kube::JsonObject{{"containers", containers}}}}}}}};
  kube::JsonObject job{
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", kube::JsonObject{{"name", "once"}, {"namespace", ns}}},
      {"spec", kube::JsonObject{
                   {"completions", kCompletions},
                   {"parallelism", kCompletions},
                   {"backoffLimit", 0},
                   {"template",
                    kube::JsonObject{
                        {"metadata",
                         kube::JsonObject{{"labels", kube::JsonObject{{"app", "once"}}},
                                          {"annotations",
                                           kube::JsonObject{{"vtenant.dev/run-duration", "5s"}}}}},
                        {"spec", kube::JsonObject{{"restartPolicy", "Never"},
                                                  {"containers", containers}}}}}}}};
  return kube::BuildJson(
      kube::JsonObject{{"apiVersion", "v1"},
                       {"kind", "List"},
                       {"items", kube::JsonArray{std::move(deployment), std::move(job)}}});
}

// What the two sides hold now; Converged() says what is still wrong.
struct Observation {
  int virtual_pods = 0;
  std::string problem;  // empty when converged
};

Observation Observe(const std::string& ns) {
  Observation o;
  auto fail = [&](const std::string& why) {
    o.problem = why;
    return o;
  };
  Result<kube::ObjectList> vpods = team_client->ListAll(res::kPods, ns);
  if (!vpods.ok()) return fail("listing virtual pods: " + vpods.status().ToString());
  std::map<std::string, const kube::Object*> virtual_by_uid;
  int running = 0, succeeded = 0, job_pods = 0;
  for (const kube::Object& pod : vpods->items) {
    if (kube::IsBeingDeleted(pod)) continue;
    ++o.virtual_pods;
    virtual_by_uid[std::string(kube::GetString(pod, {"metadata", "uid"}))] = &pod;
    const std::string phase(kube::GetString(pod, {"status", "phase"}));
    const bool job = kube::GetString(pod, {"metadata", "labels", "app"}) == "once";
    job_pods += job ? 1 : 0;
    if (!job && phase == "Running") ++running;
    if (job && phase == "Succeeded") ++succeeded;
  }
  kube::ListOptions selector;
  selector.label_selector =
      "vtenant.io/managed-by=vtenant-syncer,vtenant.io/virtual-namespace=" + ns;
  Result<kube::ObjectList> hpods = shared_env->host().ListAll(res::kPods, kHostNamespace, selector);
  if (!hpods.ok()) return fail("listing host pods: " + hpods.status().ToString());
  std::map<std::string, int> copies;
  int64_t running_milli_cpu = 0;
  for (const kube::Object& pod : hpods->items) {
    const std::string uid(kube::Annotation(pod, "vtenant.io/virtual-uid").value_or(""));
    ++copies[uid];
    if (!virtual_by_uid.contains(uid)) {
      return fail("host pod " + std::string(kube::GetString(pod, {"metadata", "name"})) +
                  " has no virtual pod (virtual uid " + uid + ")");
    }
    const std::string phase(kube::GetString(pod, {"status", "phase"}));
    if (phase == "Running") running_milli_cpu += kPodMilliCpu;
    const bool job = kube::GetString(pod, {"metadata", "labels", "app"}) == "once";
    if (!job && (kube::GetString(pod, {"spec", "nodeName"}).empty() || phase != "Running")) {
      return fail("host pod " + std::string(kube::GetString(pod, {"metadata", "name"})) + " is " +
                  phase + " on node '" + std::string(kube::GetString(pod, {"spec", "nodeName"})) +
                  "'");
    }
  }
  for (const auto& [uid, n] : copies) {
    if (n != 1) return fail("virtual pod " + uid + " has " + std::to_string(n) + " host pods");
  }
  if (copies.size() != virtual_by_uid.size()) {
    return fail(std::to_string(virtual_by_uid.size()) + " virtual pods, " +
                std::to_string(copies.size()) + " with a host pod");
  }
  if (running != kReplicas) return fail(std::to_string(running) + " Deployment pods Running");
  if (succeeded != kCompletions || job_pods != kCompletions) {
    return fail(std::to_string(job_pods) + " Job pods, " + std::to_string(succeeded) +
                " Succeeded; want exactly " + std::to_string(kCompletions));
  }
  Result<kube::Object> job = team_client->Get(res::kJobs, ns, "once");
  if (!job.ok()) return fail("reading the Job: " + job.status().ToString());
  if (kube::GetInt(*job, {"status", "succeeded"}, -1) != kCompletions) {
    return fail("the Job counts " +
                std::to_string(kube::GetInt(*job, {"status", "succeeded"}, -1)) + " successes");
  }
  Result<kube::Object> queue = shared_env->host().Get(res::kQueues, "", kTeam);
  if (!queue.ok()) return fail("reading queue nlp: " + queue.status().ToString());
  Result<kube::Quantity> allocated =
      kube::Quantity::Parse(kube::GetString(*queue, {"status", "allocated", "cpu"}));
  if (!allocated.ok() || allocated->Milli() != running_milli_cpu) {
    return fail("queue nlp shows " +
                std::string(kube::GetString(*queue, {"status", "allocated", "cpu"})) +
                " CPU allocated; its Running pods hold " + std::to_string(running_milli_cpu) + "m");
  }
  return o;
}

// Brings the environment down after the last test.
class FaultEnvironmentDown : public testing::Environment {
 public:
  void TearDown() override {
    team_client.reset();
    shared_env.reset();
  }
};

const bool down_registered = [] {
  testing::AddGlobalTestEnvironment(new FaultEnvironmentDown);
  return true;
}();

// The suites of this binary share one environment, started by the first.
class FaultEnvironmentTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    (void)down_registered;
    static bool start_tried = false;
    if (start_tried) return;
    start_tried = true;
    Result<std::unique_ptr<Environment>> env =
        Environment::Up(VTENANT_CLI, "faults", "e2e/testdata/fault-nodes.yaml");
    ASSERT_TRUE(env.ok()) << env.status().ToString();
    shared_env = std::move(*env);
    Result<std::string> applied =
        shared_env->HostKubectl({"apply", "-k", localenv::SourcePath("examples/tenants")});
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    Status ready = shared_env->WaitForTeam(kTeam);
    ASSERT_TRUE(ready.ok()) << ready.ToString();
    Result<localenv::CommandResult> config = shared_env->Vtenant({"kubeconfig", kTeam});
    ASSERT_TRUE(config.ok() && config->exit_code == 0);
    Result<kube::RestConfig> rest = kube::ParseKubeconfig(config->out);
    ASSERT_TRUE(rest.ok()) << rest.status().ToString();
    rest->timeout = std::chrono::seconds(10);
    Result<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(*rest);
    ASSERT_TRUE(client.ok());
    team_client = std::move(*client);
  }
  void SetUp() override {
    ASSERT_NE(shared_env, nullptr) << "the environment did not start";
    ASSERT_NE(team_client, nullptr) << "nlp did not become Ready";
  }
};

class FaultSuiteTest : public FaultEnvironmentTest, public ::testing::WithParamInterface<Fault> {};

// `vtenant down` then `vtenant up`: the Tenants, the team's kubeconfig (the
// one it already holds) and its pods are all still there, the same objects.
TEST_F(FaultEnvironmentTest, DownThenUpKeepsTheTenantsTheirKubeconfigsAndTheirPods) {
  ASSERT_TRUE(shared_env->TeamKubectl(kTeam, {"create", "namespace", "kept"}).ok());
  Result<std::string> applied = shared_env->TeamKubectl(kTeam, {"apply", "-f", "-"}, R"(
apiVersion: v1
kind: Pod
metadata: {name: keeper, namespace: kept}
spec:
  containers:
  - name: main
    image: busybox
    resources: {requests: {cpu: 10m, memory: 16Mi}}
)");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  kube::ListOptions selector;
  selector.label_selector = "vtenant.io/virtual-namespace=kept";
  auto host_pod = [&]() -> std::optional<kube::Object> {
    Result<kube::ObjectList> pods = shared_env->host().List(res::kPods, kHostNamespace, selector);
    if (!pods.ok() || pods->items.size() != 1) return std::nullopt;
    if (kube::GetString(pods->items[0], {"status", "phase"}) != "Running") return std::nullopt;
    return std::move(pods->items[0]);
  };
  std::optional<kube::Object> before;
  ASSERT_TRUE(
      Eventually([&] { return (before = host_pod()).has_value(); }, std::chrono::seconds(120)));
  Result<kube::Object> virtual_before = team_client->Get(res::kPods, "kept", "keeper");
  ASSERT_TRUE(virtual_before.ok());
  Result<localenv::CommandResult> kubeconfig_before = shared_env->Vtenant({"kubeconfig", kTeam});
  ASSERT_TRUE(kubeconfig_before.ok());

  Result<localenv::CommandResult> down = shared_env->Vtenant({"down"});
  ASSERT_TRUE(down.ok() && down->exit_code == 0) << (down.ok() ? down->out + down->err : "");
  EXPECT_TRUE(localenv::FindEnvironmentProcesses(shared_env->dir()).empty());
  Result<localenv::CommandResult> up = shared_env->Vtenant({"up"});
  ASSERT_TRUE(up.ok() && up->exit_code == 0) << (up.ok() ? up->out + up->err : "");
  EXPECT_NE(up->out.find("resuming the environment"), std::string::npos) << up->out;

  ASSERT_TRUE(shared_env->WaitForTeam(kTeam).ok());
  Result<localenv::CommandResult> kubeconfig_after = shared_env->Vtenant({"kubeconfig", kTeam});
  ASSERT_TRUE(kubeconfig_after.ok());
  EXPECT_EQ(kubeconfig_after->out, kubeconfig_before->out) << "the team's kubeconfig changed";
  // The kubeconfig the team already held reaches the same pod.
  Result<kube::Object> virtual_after(NotFound(""));
  ASSERT_TRUE(Eventually(
      [&] {
        virtual_after = team_client->Get(res::kPods, "kept", "keeper");
        return virtual_after.ok();
      },
      std::chrono::seconds(60)));
  EXPECT_EQ(kube::Uid(*virtual_after), kube::Uid(*virtual_before));
  std::optional<kube::Object> after;
  ASSERT_TRUE(
      Eventually([&] { return (after = host_pod()).has_value(); }, std::chrono::seconds(120)));
  EXPECT_EQ(kube::Uid(*after), kube::Uid(*before)) << "the host pod was made again";
  for (const char* tenant : {"vision", "recsys"}) {
    Result<kube::Object> t = shared_env->host().Get(res::kTenants, "", tenant);
    EXPECT_TRUE(t.ok()) << tenant << " is gone";
  }
  ASSERT_TRUE(shared_env->TeamKubectl(kTeam, {"delete", "namespace", "kept", "--wait=false"}).ok());
}

TEST_P(FaultSuiteTest, NothingIsLostOrDuplicatedWhenItIsKilledMidBurst) {
  const Fault& fault = GetParam();
  std::string ns = "burst-" + fault.name;
  std::replace(ns.begin(), ns.end(), '_', '-');
  ASSERT_TRUE(shared_env->TeamKubectl(kTeam, {"create", "namespace", ns}).ok());
  const auto begin = std::chrono::steady_clock::now();
  Result<std::string> applied =
      shared_env->TeamKubectl(kTeam, {"apply", "-f", "-"}, kube::ToJson(Workloads(ns)));
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();

  // Mid-burst: some of the pods exist in the virtual cluster, not all.
  ASSERT_TRUE(Eventually(
      [&] {
        Result<kube::ObjectList> pods = team_client->List(res::kPods, ns);
        return pods.ok() && pods->items.size() >= 60;
      },
      std::chrono::seconds(120), std::chrono::milliseconds(100)));
  Result<pid_t> victim = fault.find_process();
  ASSERT_TRUE(victim.ok()) << victim.status().ToString();
  ASSERT_EQ(kill(*victim, SIGKILL), 0) << fault.name << " pid " << *victim;

  Observation last;
  auto next_report = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  const bool converged = Eventually(
      [&] {
        last = Observe(ns);
        // What is still wrong, now and then, so a slow case says why.
        if (!last.problem.empty() && std::chrono::steady_clock::now() > next_report) {
          std::cout << "fault suite: " << fault.name << ": still " << last.problem << "\n";
          next_report += std::chrono::seconds(30);
        }
        return last.problem.empty();
      },
      std::chrono::seconds(420), std::chrono::seconds(1));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_TRUE(converged) << "after killing " << fault.name << ": " << last.problem;
  std::cout << "fault suite: killed " << fault.name << " mid-burst; " << last.virtual_pods
            << " pods converged " << static_cast<int>(seconds) << " s after the burst began\n";
  Result<pid_t> back = fault.find_process();
  EXPECT_TRUE(back.ok() && *back != *victim) << fault.name << " did not come back";

  // Clean up: the namespace goes in the virtual cluster, its pods on the host.
  ASSERT_TRUE(shared_env->TeamKubectl(kTeam, {"delete", "namespace", ns, "--wait=false"}).ok());
  kube::ListOptions selector;
  selector.label_selector = "vtenant.io/virtual-namespace=" + ns;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::ObjectList> left =
            shared_env->host().List(res::kPods, kHostNamespace, selector);
        return left.ok() && left->items.empty();
      },
      std::chrono::seconds(300), std::chrono::seconds(1)))
      << "host pods of " << ns << " outlived its namespace";
}

INSTANTIATE_TEST_SUITE_P(
    EachProgram, FaultSuiteTest,
    ::testing::Values(Fault{"syncer", [] { return TenantPid("vtenant-syncer", kTeam); }},
                      Fault{"scheduler", [] { return RecordedPid("vtenant-scheduler"); }},
                      Fault{"operator", [] { return RecordedPid("vtenant-operator"); }},
                      Fault{"tenant_apiserver", [] { return TenantPid("kube-apiserver", kTeam); }},
                      Fault{"host_apiserver", [] { return RecordedPid("kube-apiserver"); }},
                      Fault{"host_etcd", [] { return RecordedPid("etcd"); }}),
    [](const ::testing::TestParamInfo<Fault>& info) { return info.param.name; });

}  // namespace
}  // namespace vtenant::e2e

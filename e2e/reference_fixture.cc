#include "e2e/reference_fixture.h"

#include "base/eventually.h"

namespace vtenant::e2e {
namespace {

namespace res = kube::resources;
using std::chrono::seconds;

// The one environment of the binary, and whether starting it was tried.
Environment* shared_env = nullptr;
bool start_tried = false;

// Brings the shared environment down after the last test, and fails the
// run when `vtenant down` left a process behind.
class SharedEnvironmentDown : public testing::Environment {
 public:
  void TearDown() override {
    if (shared_env == nullptr) return;
    std::vector<std::string> left = shared_env->Down();
    EXPECT_TRUE(left.empty()) << "vtenant down left processes behind, first: " << left[0];
    delete shared_env;
    shared_env = nullptr;
  }
};

const bool down_registered = [] {
  testing::AddGlobalTestEnvironment(new SharedEnvironmentDown);
  return true;
}();

}  // namespace

const std::vector<std::string>& ReferenceTeams() {
  static const std::vector<std::string> kTeams = {"nlp", "vision", "recsys"};
  return kTeams;
}

void ReferenceEnvironmentTest::SetUpTestSuite() {
  (void)down_registered;
  if (start_tried) return;
  start_tried = true;
  // The scheduler as an admin who runs HAMi-core and NVIDIA's container
  // runtime would set it, so that the escape suite can try those doors.
  Result<std::unique_ptr<Environment>> env = Environment::Up(
      VTENANT_CLI, "ref", "examples/nodes/l40s.yaml",
      {"--scheduler-arg=--hami-core", "--scheduler-arg=--block-nvidia-visible-devices"});
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  shared_env = env->release();
  Result<std::string> applied = shared_env->HostKubectl({"apply", "-k", Example("")});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  for (const std::string& team : ReferenceTeams()) {
    Status ready = shared_env->WaitForTeam(team);
    ASSERT_TRUE(ready.ok()) << ready.ToString();
  }
}

void ReferenceEnvironmentTest::SetUp() {
  ASSERT_NE(shared_env, nullptr) << "the shared environment did not start";
}

Environment& ReferenceEnvironmentTest::env() { return *shared_env; }

std::vector<kube::Object> ReferenceEnvironmentTest::HostPods(const std::string& team,
                                                             const std::string& selector) {
  kube::ListOptions options;
  options.label_selector = "vtenant.io/managed-by=vtenant-syncer";
  if (!selector.empty()) options.label_selector += "," + selector;
  Result<kube::ObjectList> pods = env().host().ListAll(res::kPods, "vtenant-" + team, options);
  EXPECT_TRUE(pods.ok()) << pods.status().ToString();
  return pods.ok() ? std::move(pods->items) : std::vector<kube::Object>{};
}

std::map<std::string, std::string> ReferenceEnvironmentTest::VirtualPhases(
    const std::string& team, const std::string& selector, const std::string& ns) {
  std::map<std::string, std::string> phases;
  Result<kube::Object> list = env().TeamGet(team, {"pods", "-n", ns, "-l", selector});
  if (!list.ok()) return phases;
  const rapidjson::Value* items = kube::Find(*list, {"items"});
  if (items == nullptr || !items->IsArray()) return phases;
  for (const auto& pod : items->GetArray()) {
    if (kube::IsBeingDeleted(pod)) continue;
    phases[std::string(kube::Name(pod))] = kube::GetString(pod, {"status", "phase"});
  }
  return phases;
}

int ReferenceEnvironmentTest::CountPhase(const std::map<std::string, std::string>& phases,
                                         const std::string& phase) {
  int n = 0;
  for (const auto& [name, p] : phases) n += p == phase ? 1 : 0;
  return n;
}

int64_t ReferenceEnvironmentTest::QueueAllocated(const std::string& queue) {
  Result<kube::Object> q = env().host().Get(res::kQueues, "", queue);
  if (!q.ok()) return -1;
  return MilliGpus(kube::Find(*q, {"status", "allocated", "nvidia.com/gpu"}));
}

Status ReferenceEnvironmentTest::ApplyExample(const std::string& team, const std::string& dir) {
  return env().TeamKubectl(team, {"apply", "-k", Example(dir)}).status();
}

bool ReferenceEnvironmentTest::EventuallyRunning(const std::string& team,
                                                 const std::string& selector, int n,
                                                 std::chrono::seconds limit) {
  return Eventually([&] { return CountPhase(VirtualPhases(team, selector), "Running") == n; },
                    limit, std::chrono::milliseconds(500));
}

void ReferenceEnvironmentTest::StartTrainPods() {
  for (const std::string& team : ReferenceTeams()) {
    Status applied = ApplyExample(team, team + "/workloads");
    ASSERT_TRUE(applied.ok()) << applied.ToString();
  }
  for (const std::string& team : ReferenceTeams()) {
    EXPECT_TRUE(EventuallyRunning(team, "app=" + team + "-train", 1)) << team << "-train never ran";
  }
}

void ReferenceEnvironmentTest::DeleteWorkloads(const std::string& team, const std::string& dir,
                                               const std::string& selector) {
  Result<std::string> deleted =
      env().TeamKubectl(team, {"delete", "-k", Example(dir), "--ignore-not-found", "--wait=true"});
  EXPECT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(Eventually([&] { return HostPods(team, selector).empty(); }, seconds(120),
                         std::chrono::milliseconds(500)))
      << "host pods of " << team << " (" << selector << ") outlived their virtual pods";
}

}  // namespace vtenant::e2e

// End to end: the real `vtenant` binary brings a local environment up with
// the CRDs installed under its supervisor, reports it, survives a second
// `up`, restarts what is killed, keeps the data across `down` and `up`,
// never deletes a folder it cannot read, and leaves no process behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "base/eventually.h"
#include "base/testing/temp_dir.h"
#include "cli/environment_state.h"
#include "kube/kubeconfig.h"
#include "kube/loopback.h"
#include "kube/object.h"
#include "kube/rest_client.h"
#include "localenv/command.h"
#include "localenv/environment_processes.h"
#include "localenv/testing/source_tree.h"

namespace vtenant::cli {
namespace {

localenv::CommandResult Vtenant(const std::string& state_dir, std::vector<std::string> args) {
  args.insert(args.begin(), {VTENANT_CLI, "--state-dir", state_dir});
  Result<localenv::CommandResult> r = localenv::RunCommand(args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : localenv::CommandResult{};
}

std::string Nodes() { return localenv::SourcePath("examples/nodes/l40s.yaml"); }

Result<std::unique_ptr<kube::RestClient>> HostClient(const EnvironmentState& state) {
  VT_ASSIGN_OR_RETURN(kube::RestConfig config, kube::LoadKubeconfig(state.kubeconfig));
  return kube::RestClient::Create(config);
}

// The recorded pid of each component, by name.
std::map<std::string, pid_t> Pids(const EnvironmentState& state) {
  std::map<std::string, pid_t> pids;
  for (const ComponentRecord& c : state.components) pids[c.component.name] = c.pid;
  return pids;
}

// A ConfigMap on the host: data whose survival (same UID) the tests check.
std::string WriteWitness(kube::RestClient& host) {
  Result<kube::Object> witness =
      kube::ParseJson(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"witness"},)"
                      R"("data":{"kept":"yes"}})");
  EXPECT_TRUE(witness.ok());
  Result<kube::Object> made = host.Create(kube::resources::kConfigMaps, "default", *witness);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return made.ok() ? std::string(kube::GetString(*made, {"metadata", "uid"})) : "";
}

std::string WitnessUid(const EnvironmentState& state) {
  Result<std::unique_ptr<kube::RestClient>> host = HostClient(state);
  if (!host.ok()) return "";
  std::string uid;
  Eventually([&] {
    Result<kube::Object> got = (*host)->Get(kube::resources::kConfigMaps, "default", "witness");
    if (got.ok()) uid = kube::GetString(*got, {"metadata", "uid"});
    return got.ok();
  });
  return uid;
}

void ExpectNothingLeft(const std::string& dir, const EnvironmentState& state) {
  for (const ComponentRecord& c : state.components) {
    EXPECT_FALSE(localenv::ProcessRuns(c.pid, ProgramOf(c.component), ""))
        << c.component.name << " (pid " << c.pid << ") outlived `vtenant down`";
  }
  EXPECT_FALSE(state.SupervisorRunning()) << "the supervisor outlived `vtenant down`";
  for (const localenv::EnvironmentProcess& p : localenv::FindEnvironmentProcesses(dir)) {
    ADD_FAILURE() << p.name << " (pid " << p.pid << ") outlived `vtenant down`";
  }
}

TEST(CliUpDownTest, UpIsIdempotentDownKeepsTheDataAndDeleteRemovesIt) {
  const TempDir temp("vtenant-cli");
  const std::string dir = temp.File("state");

  localenv::CommandResult up = Vtenant(dir, {"up", "--nodes", Nodes()});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("1 ready node"), std::string::npos) << up.out;
  EXPECT_NE(up.out.find("NVIDIA-L40S"), std::string::npos) << up.out;
  EXPECT_NE(up.out.find("46068"), std::string::npos) << up.out;
  EXPECT_NE(up.out.find("installed CRDs"), std::string::npos) << up.out;

  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_TRUE(state->SupervisorRunning());
  EXPECT_EQ(state->phase, "ready");
  // The host cluster's four, vtenant-scheduler and vtenant-operator.
  ASSERT_EQ(state->components.size(), 6u);
  EXPECT_EQ(state->Alive().size(), state->components.size());
  Result<std::unique_ptr<kube::RestClient>> client = HostClient(*state);
  ASSERT_TRUE(client.ok());
  for (const char* crd : {"queues.scheduling.run.ai", "podgroups.scheduling.run.ai"}) {
    EXPECT_TRUE((*client)->Get(kube::resources::kCustomResourceDefinitions, "", crd).ok()) << crd;
  }
  const std::string uid = WriteWitness(**client);

  localenv::CommandResult again = Vtenant(dir, {"up", "--nodes", Nodes()});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("already running"), std::string::npos) << again.out;
  EXPECT_EQ(Pids(*EnvironmentState::Load(dir)), Pids(*state)) << "a second `up` restarted things";

  localenv::CommandResult status = Vtenant(dir, {"status"});
  EXPECT_EQ(status.exit_code, 0) << status.out << status.err;
  for (const char* component : {"etcd", "kube-apiserver", "kube-controller-manager",
                                "vtenant-scheduler", "vtenant-operator"}) {
    EXPECT_TRUE(std::regex_search(
        status.out, std::regex(std::string("\n") + component + " +[0-9]+ +running +0 +ok")))
        << component << " not running and healthy in:\n"
        << status.out;
  }

  // down stops everything, keeps the data.
  localenv::CommandResult down = Vtenant(dir, {"down"});
  EXPECT_EQ(down.exit_code, 0) << down.out << down.err;
  EXPECT_NE(down.out.find("data is kept"), std::string::npos) << down.out;
  ExpectNothingLeft(dir, *state);
  ASSERT_TRUE(std::filesystem::exists(dir + "/state.yaml"));

  // up brings back the same environment: same data, same API server address.
  localenv::CommandResult resumed = Vtenant(dir, {"up"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.out.find("resuming the environment"), std::string::npos) << resumed.out;
  Result<EnvironmentState> after = EnvironmentState::Load(dir);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->kubeconfig, state->kubeconfig);
  EXPECT_EQ(after->Alive().size(), 6u);
  EXPECT_EQ(WitnessUid(*after), uid) << "the host's data did not survive down and up";

  // delete is the one command that removes it, and says so, counting the
  // tenants' folders (three stand in for the tenants'; what else the
  // operator keeps beside them is not one).
  for (const char* team : {"team-a", "team-b", "team-c"})
    std::filesystem::create_directories(dir + "/operator/tenants/" + team);
  localenv::CommandResult deleted = Vtenant(dir, {"delete"});
  EXPECT_EQ(deleted.exit_code, 0) << deleted.out << deleted.err;
  EXPECT_NE(deleted.out.find("removed " + dir), std::string::npos) << deleted.out;
  EXPECT_NE(deleted.out.find(" 3 tenant folder(s)"), std::string::npos) << deleted.out;
  ExpectNothingLeft(dir, *after);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(CliUpDownTest, AKilledComponentIsRestartedAndUpBringsBackOnlyWhatIsMissing) {
  const TempDir temp("vtenant-cli");
  const std::string dir = temp.File("state");
  localenv::CommandResult up = Vtenant(dir, {"up", "--nodes", Nodes()});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  ASSERT_TRUE(state.ok());
  Result<std::unique_ptr<kube::RestClient>> client = HostClient(*state);
  ASSERT_TRUE(client.ok());
  const std::string uid = WriteWitness(**client);

  // The supervisor restarts what dies, the host's store and API server too.
  for (const char* name : {"vtenant-scheduler", "etcd", "kube-apiserver"}) {
    const pid_t before = Pids(*EnvironmentState::Load(dir))[name];
    ASSERT_EQ(kill(before, SIGKILL), 0) << name;
    ASSERT_TRUE(Eventually(
        [&] {
          Result<EnvironmentState> now = EnvironmentState::Load(dir);
          const ComponentRecord* c = now.ok() ? now->Find(name) : nullptr;
          return c != nullptr && c->pid > 0 && c->pid != before && c->restarts == 1 &&
                 localenv::ProcessRuns(c->pid, ProgramOf(c->component), "");
        },
        std::chrono::seconds(60)))
        << name << " was not restarted";
  }
  localenv::CommandResult status = Vtenant(dir, {"status"});
  ASSERT_TRUE(Eventually(
      [&] {
        status = Vtenant(dir, {"status"});
        return status.exit_code == 0;
      },
      std::chrono::seconds(60)))
      << status.out << status.err;
  EXPECT_TRUE(std::regex_search(
      status.out, std::regex("\nkube-apiserver +[0-9]+ +running +1 +ok +killed by signal 9")))
      << status.out;
  EXPECT_EQ(WitnessUid(*EnvironmentState::Load(dir)), uid);

  // Without its supervisor, a dead component stays dead until `up`, which
  // starts exactly it and adopts the rest.
  Result<EnvironmentState> before = EnvironmentState::Load(dir);
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(kill(before->supervisor_pid, SIGKILL), 0);
  const pid_t killed = before->Find("vtenant-operator")->pid;
  ASSERT_EQ(kill(killed, SIGKILL), 0);
  ASSERT_TRUE(Eventually([&] {
    return !before->SupervisorRunning() && !localenv::ProcessRuns(killed, "vtenant-operator", "");
  }));
  localenv::CommandResult status_down = Vtenant(dir, {"status"});
  EXPECT_EQ(status_down.exit_code, 1) << status_down.out;
  EXPECT_NE(status_down.out.find("supervisor: not running"), std::string::npos) << status_down.out;
  // What runs as `up` starts: a follower whose restart the supervisor
  // began (kwok, after the API server's) may have died with it too.
  Result<EnvironmentState> at_up = EnvironmentState::Load(dir);
  ASSERT_TRUE(at_up.ok());
  std::map<std::string, pid_t> expected;
  for (const std::string& name : at_up->Alive()) expected[name] = at_up->Find(name)->pid;
  ASSERT_FALSE(expected.contains("vtenant-operator"));
  localenv::CommandResult resumed = Vtenant(dir, {"up"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  const size_t again = resumed.out.find("started again: ");
  ASSERT_NE(again, std::string::npos) << resumed.out;
  EXPECT_NE(
      resumed.out.substr(again, resumed.out.find(';', again) - again).find("vtenant-operator"),
      std::string::npos)
      << resumed.out;
  Result<EnvironmentState> after = EnvironmentState::Load(dir);
  ASSERT_TRUE(after.ok());
  std::map<std::string, pid_t> got = Pids(*after);
  EXPECT_NE(got["vtenant-operator"], before->Find("vtenant-operator")->pid);
  std::erase_if(got, [&](const auto& entry) { return !expected.contains(entry.first); });
  EXPECT_EQ(got, expected) << "`up` restarted components that were running";
  EXPECT_EQ(after->Alive().size(), 6u);
  EXPECT_EQ(WitnessUid(*after), uid);

  localenv::CommandResult down = Vtenant(dir, {"down", "--purge"});
  EXPECT_EQ(down.exit_code, 0) << down.out << down.err;
  ExpectNothingLeft(dir, *after);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// Listens on a free loopback port until destroyed, like another server would.
class BusyPort {
 public:
  BusyPort() {
    Result<int> fd = kube::ListenOnLoopback(&port_);
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    fd_ = fd.value_or(-1);
  }
  ~BusyPort() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(CliUpDownTest, ADamagedStateFolderIsNeverDeletedByUpAndABusyPortIsAvoided) {
  const TempDir temp("vtenant-cli");
  const std::string dir = temp.File("state");
  // A folder left by a crashed run: a damaged state file and an etcd folder.
  std::filesystem::create_directories(dir + "/etcd");
  std::ofstream(dir + "/state.yaml") << "components: [ {name: etcd\n";
  localenv::CommandResult refused = Vtenant(dir, {"up", "--nodes", Nodes()});
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("is damaged"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("vtenant delete"), std::string::npos) << refused.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/etcd")) << "`up` removed data";

  localenv::CommandResult deleted = Vtenant(dir, {"delete"});
  EXPECT_EQ(deleted.exit_code, 0) << deleted.out << deleted.err;
  EXPECT_FALSE(std::filesystem::exists(dir));

  BusyPort busy;
  localenv::CommandResult up =
      Vtenant(dir, {"up", "--nodes", Nodes(), "--port", std::to_string(busy.port())});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("port " + std::to_string(busy.port())), std::string::npos) << up.out;
  EXPECT_NE(up.out.find("using a free port instead"), std::string::npos) << up.out;
  localenv::CommandResult down = Vtenant(dir, {"delete"});
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_TRUE(localenv::FindEnvironmentProcesses(dir).empty());
}

TEST(CliUpDownTest, BadInventoryIsAClearErrorAndStartsNothing) {
  const TempDir temp("vtenant-cli");
  const std::string bad = temp.File("nodes.yaml");
  FILE* f = fopen(bad.c_str(), "w");
  fputs("nodes: [{name: x, cpu: 1, memory: 1Gi, gpus: 1}]\n", f);
  fclose(f);
  localenv::CommandResult up = Vtenant(temp.File("state"), {"up", "--nodes", bad});
  EXPECT_EQ(up.exit_code, 1);
  EXPECT_NE(up.err.find("gpuProduct"), std::string::npos) << up.err;
  EXPECT_FALSE(std::filesystem::exists(temp.File("state/state.yaml")));
}

TEST(CliHelpTest, EveryCommandExplainsItselfAlsoAsAKubectlPlugin) {
  const std::string plugin =
      (std::filesystem::path(VTENANT_CLI).parent_path() / "kubectl-vtenant").string();
  for (const std::string& binary : {std::string(VTENANT_CLI), plugin}) {
    const std::string name = binary == plugin ? "kubectl vtenant" : "vtenant";
    for (const char* command : {"up", "down", "status", "tenants", "queues", "kubeconfig"}) {
      Result<localenv::CommandResult> help = localenv::RunCommand({binary, command, "--help"});
      ASSERT_TRUE(help.ok()) << help.status().ToString();
      EXPECT_EQ(help->exit_code, 0) << binary << " " << command << ": " << help->err;
      EXPECT_NE(help->out.find("Usage: "), std::string::npos) << command << ": " << help->out;
    }
    Result<localenv::CommandResult> top = localenv::RunCommand({binary, "--help"});
    ASSERT_TRUE(top.ok());
    EXPECT_NE(top->out.find("Usage: " + name + " "), std::string::npos) << top->out;
    Result<localenv::CommandResult> bad = localenv::RunCommand({binary, "nosuchcommand"});
    ASSERT_TRUE(bad.ok());
    EXPECT_EQ(bad->exit_code, 2);
    EXPECT_NE(bad->err.find("unknown command \"nosuchcommand\""), std::string::npos) << bad->err;
  }
}

}  // namespace
}  // namespace vtenant::cli

// End to end: the real `vtenant` binary brings a local environment up with
// the CRDs installed, reports it, survives a second `up`, recovers from a
// stale state folder and a busy port, and `down` leaves no process behind.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/eventually.h"
#include "cli/environment_state.h"
#include "cli/leftover_processes.h"
#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "localenv/command.h"

namespace vtenant::cli {
namespace {

localenv::CommandResult Vtenant(const std::string& state_dir, std::vector<std::string> args) {
  args.insert(args.begin(), {VTENANT_CLI, "--state-dir", state_dir});
  Result<localenv::CommandResult> r = localenv::RunCommand(args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : localenv::CommandResult{};
}

TEST(CliUpDownTest, UpIsIdempotentAndDownStopsEverything) {
  char tmpl[] = "/tmp/vtenant-cli-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = std::string(tmpl) + "/state";
  const std::string nodes =
      std::string(std::getenv("VTENANT_SOURCE_DIR")) + "/examples/nodes/l40s.yaml";

  localenv::CommandResult up = Vtenant(dir, {"up", "--nodes", nodes});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("1 ready simulated GPU node"), std::string::npos) << up.out;
  EXPECT_NE(up.out.find("NVIDIA-L40S"), std::string::npos) << up.out;
  EXPECT_NE(up.out.find("46068"), std::string::npos) << up.out;

  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  // The host cluster's four, plus vtenant-scheduler and vtenant-operator
  // where they are built.
  ASSERT_GE(state->processes.size(), 4u);
  EXPECT_EQ(state->Alive().size(), state->processes.size());
  EXPECT_NE(up.out.find("installed CRDs"), std::string::npos) << up.out;

  Result<kube::RestConfig> config = kube::LoadKubeconfig(state->kubeconfig);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  Result<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(*config);
  ASSERT_TRUE(client.ok());
  for (const char* crd : {"queues.scheduling.run.ai", "podgroups.scheduling.run.ai"}) {
    EXPECT_TRUE((*client)->Get(kube::resources::kCustomResourceDefinitions, "", crd).ok()) << crd;
  }

  localenv::CommandResult again = Vtenant(dir, {"up", "--nodes", nodes});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("already running"), std::string::npos) << again.out;

  localenv::CommandResult status = Vtenant(dir, {"status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("running  kube-apiserver"), std::string::npos) << status.out;

  localenv::CommandResult down = Vtenant(dir, {"down"});
  EXPECT_EQ(down.exit_code, 0) << down.err;
  for (const auto& [name, pid] : state->processes) {
    EXPECT_NE(kill(pid, 0), 0) << name << " (pid " << pid << ") outlived `vtenant down`";
  }
  for (const LeftoverProcess& p : FindLeftoverProcesses(dir)) {
    ADD_FAILURE() << p.name << " (pid " << p.pid << ") outlived `vtenant down`";
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
  std::filesystem::remove_all(tmpl);
}

// Listens on a free loopback port until destroyed, like another server would.
class BusyPort {
 public:
  BusyPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(fd_, 1), 0);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~BusyPort() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(CliUpDownTest, StaleStateAndABusyPortAreExplainedAndRecovered) {
  char tmpl[] = "/tmp/vtenant-cli-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = std::string(tmpl) + "/state";
  const std::string nodes =
      std::string(std::getenv("VTENANT_SOURCE_DIR")) + "/examples/nodes/l40s.yaml";
  // A folder left by a crashed run: a damaged state file and an etcd folder.
  std::filesystem::create_directories(dir + "/etcd");
  std::ofstream(dir + "/state.yaml") << "processes: [ {name: etcd\n";
  BusyPort busy;

  localenv::CommandResult up =
      Vtenant(dir, {"up", "--nodes", nodes, "--port", std::to_string(busy.port())});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("holds no usable environment"), std::string::npos) << up.out;
  EXPECT_NE(up.out.find("port " + std::to_string(busy.port())), std::string::npos) << up.out;
  EXPECT_NE(up.out.find("using a free port instead"), std::string::npos) << up.out;
  Result<EnvironmentState> first = EnvironmentState::Load(dir);
  ASSERT_TRUE(first.ok()) << first.status().ToString();

  // The machine "restarts": one recorded process dies. `up` replaces the lot.
  ASSERT_EQ(kill(first->processes[0].second, SIGKILL), 0);
  ASSERT_TRUE(Eventually([&] { return first->Alive().size() < first->processes.size(); }));
  localenv::CommandResult again = Vtenant(dir, {"up", "--nodes", nodes});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("left from an earlier run"), std::string::npos) << again.out;
  for (const auto& [name, pid] : first->processes) {
    EXPECT_FALSE(IsRecordedProcess(name, pid)) << name << " of the stale run still runs";
  }

  localenv::CommandResult down = Vtenant(dir, {"down"});
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_TRUE(FindLeftoverProcesses(dir).empty());
  std::filesystem::remove_all(tmpl);
}

TEST(CliUpDownTest, BadInventoryIsAClearErrorAndStartsNothing) {
  char tmpl[] = "/tmp/vtenant-cli-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string bad = std::string(tmpl) + "/nodes.yaml";
  FILE* f = fopen(bad.c_str(), "w");
  fputs("nodes: [{name: x, cpu: 1, memory: 1Gi, gpus: 1}]\n", f);
  fclose(f);
  localenv::CommandResult up = Vtenant(std::string(tmpl) + "/state", {"up", "--nodes", bad});
  EXPECT_EQ(up.exit_code, 1);
  EXPECT_NE(up.err.find("gpuProduct"), std::string::npos) << up.err;
  EXPECT_FALSE(std::filesystem::exists(std::string(tmpl) + "/state/state.yaml"));
  std::filesystem::remove_all(tmpl);
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

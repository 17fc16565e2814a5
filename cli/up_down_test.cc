// End to end: the real `vtenant` binary brings a local environment up, reports
// it, survives a second `up`, and `down` leaves no process behind.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>

#include "cli/environment_state.h"
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
  ASSERT_EQ(state->processes.size(), 4u);
  EXPECT_EQ(state->Alive().size(), 4u);

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
  EXPECT_FALSE(std::filesystem::exists(dir));
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

}  // namespace
}  // namespace vtenant::cli

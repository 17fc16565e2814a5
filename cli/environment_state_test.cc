#include "cli/environment_state.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/testing/temp_dir.h"

namespace vtenant::cli {
namespace {

namespace fs = std::filesystem;

class EnvironmentStateTest : public testing::Test {
 protected:
  TempDir temp_{"vtenant-state-test"};
  const std::string dir_ = temp_.path();
};

TEST_F(EnvironmentStateTest, AComponentComesBackAsItWasStartedUmaskIncluded) {
  EnvironmentState state;
  state.kubeconfig = "/state/host/admin.kubeconfig";
  state.phase = "ready";
  ComponentRecord kubelet;
  kubelet.component.name = "kubelet";
  kubelet.component.process.argv = {"/tools/kubelet", "--config=/state/node/kubelet.yaml"};
  kubelet.component.process.env = {{"PATH", "/usr/bin"}};
  kubelet.component.process.umask = 022;
  kubelet.component.process.die_with_parent = true;
  kubelet.component.restart_after = {"containerd"};
  kubelet.restarts = 2;
  ComponentRecord etcd;
  etcd.component.name = "etcd";
  etcd.component.process.argv = {"/tools/etcd"};
  state.components = {etcd, kubelet};
  ASSERT_TRUE(state.Save(dir_).ok());

  Result<EnvironmentState> loaded = EnvironmentState::Load(dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(loaded->components.size(), 2u);
  const localenv::ProcessOptions& k = loaded->components[1].component.process;
  EXPECT_EQ(k.argv, kubelet.component.process.argv);
  EXPECT_EQ(k.env, kubelet.component.process.env);
  ASSERT_TRUE(k.umask.has_value()) << "a restarted kubelet would run under the environment's 077";
  EXPECT_EQ(*k.umask, 022);
  EXPECT_FALSE(k.die_with_parent);
  EXPECT_EQ(loaded->components[1].component.restart_after, std::vector<std::string>{"containerd"});
  EXPECT_EQ(loaded->components[1].restarts, 2);
  EXPECT_FALSE(loaded->components[0].component.process.umask.has_value());
}

TEST_F(EnvironmentStateTest, AUmaskThatIsNotOctalIsADamagedRecord) {
  std::ofstream(dir_ + "/state.yaml") << "components:\n- name: kubelet\n  umask: \"0x22\"\n";
  Result<EnvironmentState> loaded = EnvironmentState::Load(dir_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(loaded.status().message().find("not octal"), std::string::npos)
      << loaded.status().message();
}

}  // namespace
}  // namespace vtenant::cli

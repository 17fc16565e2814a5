// A gtest fixture for a suite of tests on one local environment with a real
// node: `vtenant up` once for the suite, and after it `vtenant down` and
// `vtenant delete`, failing the suite if anything of the node outlives
// them. Every test is skipped, with the reason, where this machine cannot
// run containers, and fails with `vtenant up`'s own words where it failed.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/file.h"
#include "e2e/support/environment.h"
#include "e2e/support/real_node.h"

namespace vtenant::e2e {

class RealNodeSuite : public ::testing::Test {
 protected:
  // Brings up the suite's environment: `cli` up with `nodes_file` (under
  // the source folder) and `up_args`. Called from a suite's
  // SetUpTestSuite; a failure is reported by every test's SetUp.
  static void Up(const std::string& cli, const std::string& name, const std::string& nodes_file,
                 const std::vector<std::string>& up_args) {
    skip_reason_ = new std::string(CannotRunContainers());
    if (!skip_reason_->empty()) return;
    Result<std::unique_ptr<Environment>> env = Environment::Up(cli, name, nodes_file, up_args);
    if (!env.ok()) {
      up_error_ = new std::string(env.status().ToString());
      return;
    }
    env_ = env->release();
  }

  // `vtenant down` leaves no process of the node (kubelet, containerd,
  // shims, the pods'); `vtenant delete` removes its namespace, cgroup and
  // mounts.
  static void TearDownTestSuite() {
    if (env_ == nullptr) return;
    for (const std::string& left : env_->Down()) ADD_FAILURE() << "left behind: " << left;
    Result<localenv::CommandResult> removed = env_->Vtenant({"delete"});
    if (!removed.ok() || removed->exit_code != 0) {
      ADD_FAILURE() << "vtenant delete: " << (removed.ok() ? removed->out + removed->err : "");
    }
    delete env_;
    env_ = nullptr;
  }

  void SetUp() override {
    if (!skip_reason_->empty()) GTEST_SKIP() << *skip_reason_;
    ASSERT_EQ(up_error_, nullptr) << *up_error_;
  }

  // The busybox image the node imported (localhost/vtenant/busybox:<version>).
  static std::string BusyboxImage() {
    std::string ref = ReadFileOrEmpty(env_->dir() + "/node/images/busybox.ref");
    while (!ref.empty() && ref.back() == '\n') ref.pop_back();
    return ref;
  }

  static inline Environment* env_ = nullptr;
  static inline std::string* skip_reason_ = nullptr;
  static inline std::string* up_error_ = nullptr;
};

}  // namespace vtenant::e2e

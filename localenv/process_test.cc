#include "localenv/process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "localenv/command.h"

namespace vtenant::localenv {
namespace {

std::string TempLog() {
  return (std::filesystem::temp_directory_path() /
          ("process_test_" + std::to_string(getpid()) + ".log"))
      .string();
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

TEST(ProcessTest, StopEndsTheWholeProcessGroup) {
  // The shell starts a grandchild; Stop() must not leave it behind.
  const std::string log = TempLog();
  Result<Process> p =
      Process::Start({.argv = {"/bin/sh", "-c", "sleep 300 & echo $! ; wait"}, .log_path = log});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  pid_t grandchild = 0;
  for (int i = 0; i < 100 && grandchild == 0; ++i) {
    std::ifstream in(log);
    in >> grandchild;
    if (grandchild == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(Alive(grandchild));
  const pid_t pid = p->pid();
  EXPECT_TRUE(p->Running());
  p->Stop(std::chrono::seconds(5));
  EXPECT_FALSE(p->Running());
  EXPECT_FALSE(Alive(pid));
  // The grandchild was reparented to init, which reaps it; give it a moment.
  for (int i = 0; i < 100 && Alive(grandchild); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(Alive(grandchild));
  std::filesystem::remove(log);
}

TEST(ProcessTest, MissingExecutableIsAClearError) {
  Result<Process> p =
      Process::Start({.argv = {"/nonexistent/kube-apiserver"}, .log_path = TempLog()});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("/nonexistent/kube-apiserver"), std::string::npos);
  EXPECT_NE(p.status().message().find("make deps"), std::string::npos);
}

TEST(ProcessTest, ReportsHowTheChildEnded) {
  Result<Process> p = Process::Start({.argv = {"/bin/sh", "-c", "exit 3"}, .log_path = TempLog()});
  ASSERT_TRUE(p.ok());
  while (p->Running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(p->Stop(), "not running");
}

TEST(RunCommandTest, CapturesOutputsAndExitCode) {
  Result<CommandResult> r =
      RunCommand({"/bin/sh", "-c", "cat; echo oops >&2; exit 4"}, std::string(200000, 'x'));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 4);
  EXPECT_EQ(r->out.size(), 200000u);
  EXPECT_EQ(r->err, "oops\n");
}

}  // namespace
}  // namespace vtenant::localenv

// The parts of ProcessBackend that need no servers: trusting pid files.
#include "operator/process_backend.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace vtenant::op {
namespace {

std::string SelfName() { return std::filesystem::read_symlink("/proc/self/exe").filename(); }

TEST(ProcessBackendTest, PidFilesAreTrustedOnlyForTheRightProgram) {
  EXPECT_TRUE(ProcessRuns(getpid(), SelfName(), ""));
  EXPECT_FALSE(ProcessRuns(getpid(), "kube-apiserver", ""));  // a recycled pid
  EXPECT_FALSE(ProcessRuns(getpid(), SelfName(), "--etcd-prefix=/vtenant/nlp/"));
  EXPECT_FALSE(ProcessRuns(-1, SelfName(), ""));
  EXPECT_FALSE(ProcessRuns(0, SelfName(), ""));
}

TEST(ProcessBackendTest, FindsAProcessByProgramAndArgument) {
  // gtest's own argv[0] is the only argument every run has.
  EXPECT_EQ(FindRunning(SelfName(), SelfName()), getpid());
  EXPECT_EQ(FindRunning("kube-apiserver", "/no/such/tenant/folder"), -1);
}

TEST(ProcessBackendTest, AReapedChildDoesNotCount) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  // Until reaped the child is a zombie; ProcessRuns reaps it and says no.
  for (int i = 0; i < 1000 && ProcessRuns(child, SelfName(), ""); ++i) usleep(1000);
  EXPECT_FALSE(ProcessRuns(child, SelfName(), ""));
}

}  // namespace
}  // namespace vtenant::op

#include "localenv/process.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/eventually.h"
#include "base/testing/temp_dir.h"
#include "localenv/command.h"
#include "localenv/testing/descriptors_exhausted.h"

namespace vtenant::localenv {
namespace {

// Made before any test runs: a child a test forks may ask for a log, and
// must not make a folder that only its parent would remove.
const TempDir kLogFolder("process_test");

std::string TempLog() { return kLogFolder.File("process.log"); }

// Running, not merely a zombie waiting for whoever adopted it to reap it.
bool Alive(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, comm, state;
  stat >> pid_field >> comm >> state;
  return state != "Z";
}

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
}

TEST(ProcessTest, ChildrenDieWithACrashedParent) {
  // A stand-in for a test binary that crashes while its servers run: it
  // starts a child through Process and is then killed with SIGKILL, so no
  // destructor runs. The child must not outlive it.
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t crasher = fork();
  ASSERT_GE(crasher, 0);
  if (crasher == 0) {
    Result<Process> child = Process::Start({.argv = {"/bin/sleep", "300"}, .log_path = TempLog()});
    pid_t pid = child.ok() ? child->pid() : -1;
    (void)!write(pipe_fds[1], &pid, sizeof(pid));
    pause();
    _exit(0);
  }
  pid_t child = -1;
  ASSERT_EQ(read(pipe_fds[0], &child, sizeof(child)), static_cast<ssize_t>(sizeof(child)));
  ASSERT_GT(child, 0);
  EXPECT_TRUE(Alive(child));
  kill(crasher, SIGKILL);
  waitpid(crasher, nullptr, 0);
  for (int i = 0; i < 250 && Alive(child); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(Alive(child)) << "child " << child << " outlived its crashed parent";
  close(pipe_fds[0]);
  close(pipe_fds[1]);
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
  EXPECT_EQ(p->exit_description(), "exited 3");
  EXPECT_EQ(p->Stop(), "not running");
}

// How a child ended goes with it when the Process is moved (a supervisor
// takes over a Process that a start helper returned).
TEST(ProcessTest, AMoveKeepsHowTheChildEnded) {
  Result<Process> p = Process::Start({.argv = {"/bin/sh", "-c", "exit 3"}, .log_path = TempLog()});
  ASSERT_TRUE(p.ok());
  while (p->Running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  Process moved(std::move(*p));
  EXPECT_EQ(moved.exit_description(), "exited 3");
  EXPECT_EQ(p->exit_description(), "");
  Process assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.exit_description(), "exited 3");
  EXPECT_EQ(moved.exit_description(), "");
}

// A program killed while its children run must be able to listen on its own
// port again when started anew: the children hold none of its sockets.
TEST(ProcessTest, AChildHoldsNoneOfTheParentsSockets) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);  // no SOCK_CLOEXEC, on purpose
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);

  Result<Process> child = Process::Start({.argv = {"/bin/sleep", "30"}, .log_path = TempLog()});
  ASSERT_TRUE(child.ok());
  // Once it runs `sleep`, whatever it kept across exec is what it holds.
  const std::string exe = "/proc/" + std::to_string(child->pid()) + "/exe";
  for (int i = 0; i < 500 && std::filesystem::read_symlink(exe).filename() != "sleep"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  close(listener);
  const int again = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_EQ(bind(again, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0)
      << "the child still holds port " << ntohs(addr.sin_port) << ": " << std::strerror(errno);
  close(again);
}

TEST(RunCommandTest, CapturesOutputsAndExitCode) {
  Result<CommandResult> r =
      RunCommand({"/bin/sh", "-c", "cat; echo oops >&2; exit 4"}, std::string(200000, 'x'));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 4);
  EXPECT_EQ(r->out.size(), 200000u);
  EXPECT_EQ(r->err, "oops\n");
}

// Room for two pipes but not three: the two made must be closed again.
TEST(RunCommandTest, LeaksNoPipeWhenItCannotMakeThemAll) {
  DescriptorsExhausted exhausted(4);
  ASSERT_EQ(DescriptorsExhausted::Free(), 4);
  Result<CommandResult> r = RunCommand({"/bin/true"});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(DescriptorsExhausted::Free(), 4);
}

std::string SelfName() { return std::filesystem::read_symlink("/proc/self/exe").filename(); }

TEST(ProcessRunsTest, ARecordedPidIsTrustedOnlyForTheRightProgram) {
  EXPECT_TRUE(ProcessRuns(getpid(), SelfName(), ""));
  EXPECT_FALSE(ProcessRuns(getpid(), "kube-apiserver", ""));  // a recycled pid
  EXPECT_FALSE(ProcessRuns(getpid(), SelfName(), "--etcd-prefix=/vtenant/nlp/"));
  EXPECT_FALSE(ProcessRuns(-1, SelfName(), ""));
  EXPECT_FALSE(ProcessRuns(0, SelfName(), ""));
}

TEST(ProcessRunsTest, FindsAProcessByProgramAndArgument) {
  // gtest's own argv[0] is the only argument every run has.
  EXPECT_EQ(FindRunning(SelfName(), SelfName()), getpid());
  EXPECT_EQ(FindRunning(SelfName(), SelfName(), getpid()), getpid());
  EXPECT_EQ(FindRunning("kube-apiserver", "/no/such/tenant/folder"), -1);
  EXPECT_EQ(FindRunning("kube-apiserver", "/no/such/tenant/folder", getpid()), -1);
}

TEST(ProcessRunsTest, ListsEachProcessWithItsCommandLineAndFolder) {
  const std::string folder = std::filesystem::temp_directory_path().string();
  Result<Process> child = Process::Start(
      {.argv = {"/bin/sh", "-c", "exec sleep 60"}, .log_path = "/dev/null", .working_dir = folder});
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  const RunningProcess* listed = nullptr;
  std::vector<RunningProcess> all;
  // The child may still be the shell or already sleep; either keeps the pid.
  Eventually([&] {
    all = ListProcesses();
    listed = nullptr;
    for (const RunningProcess& p : all) {
      if (p.pid == child->pid()) listed = &p;
    }
    return listed != nullptr && listed->argv[0] == "sleep";
  });
  ASSERT_NE(listed, nullptr);
  EXPECT_EQ(listed->argv, (std::vector<std::string>{"sleep", "60"}));
  EXPECT_EQ(listed->cwd, folder);
  bool self = false;
  for (const RunningProcess& p : all) self = self || p.pid == getpid();
  EXPECT_TRUE(self);
  child->Stop(std::chrono::seconds(1));
}

// Blocks until `pid`, a child of ours, has exited, without reaping it.
void WaitUntilExited(pid_t pid) {
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT), 0)
      << std::strerror(errno);
}

// Asked about a child that a Process started, ProcessRuns must not reap it:
// the Process would lose how it ended and keep a pid that is no longer its.
TEST(ProcessRunsTest, LeavesAProcessItsOwnChild) {
  Result<Process> p = Process::Start({.argv = {"/bin/sh", "-c", "exit 3"}, .log_path = TempLog()});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  WaitUntilExited(p->pid());
  EXPECT_FALSE(ProcessRuns(p->pid(), "sh", ""));  // a zombie does not run
  EXPECT_FALSE(p->Running());
  EXPECT_EQ(p->exit_description(), "exited 3");
  EXPECT_EQ(p->pid(), -1);
}

// A child reaped behind the Process's back: its pid, and so its process
// group id, may be reused at once, so the Process forgets it and never
// signals it again.
TEST(ProcessTest, ForgetsAChildReapedElsewhere) {
  Result<Process> p = Process::Start({.argv = {"/bin/sh", "-c", "exit 0"}, .log_path = TempLog()});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const pid_t pid = p->pid();
  ASSERT_EQ(waitpid(pid, nullptr, 0), pid);
  EXPECT_FALSE(p->Running());
  EXPECT_EQ(p->pid(), -1);
  EXPECT_EQ(p->exit_description(), "gone");
  EXPECT_EQ(p->Stop(), "not running");

  // Stop without Running first forgets it as well.
  Result<Process> q = Process::Start({.argv = {"/bin/sh", "-c", "exit 0"}, .log_path = TempLog()});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  ASSERT_EQ(waitpid(q->pid(), nullptr, 0), q->pid());
  EXPECT_EQ(q->Stop(std::chrono::milliseconds(0)), "exited");
  EXPECT_EQ(q->pid(), -1);
}

// A child a Process released is nobody's: ProcessRuns reaps its zombie.
TEST(ProcessRunsTest, ReapsAReleasedChild) {
  Result<Process> p = Process::Start({.argv = {"/bin/sh", "-c", "exit 0"}, .log_path = TempLog()});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const pid_t pid = p->Release();
  WaitUntilExited(pid);
  EXPECT_FALSE(ProcessRuns(pid, "sh", ""));
  errno = 0;
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

// The operator stops a tenant's servers by their pid files, and they may be
// its own children (started by it, then released when it stopped
// supervising the tenant). Stop must see such a child exit and reap it, not
// take its zombie for a process that ignores SIGTERM until the grace is over.
TEST(ProcessTest, StoppingAnAdoptedChildOfOursReapsIt) {
  Result<Process> started = Process::Start({.argv = {"/bin/sleep", "600"}, .log_path = TempLog()});
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  const pid_t pid = started->Release();
  Process adopted = Process::Adopt(pid, "sleep");
  // Mistaken for a live process, the zombie would be signalled until the
  // grace ran out and then left unreaped, which the check below sees.
  EXPECT_EQ(adopted.Stop(std::chrono::seconds(60)), "exited");
  errno = 0;
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1) << "the child was left a zombie";
  EXPECT_EQ(errno, ECHILD);
}

TEST(ProcessRunsTest, AReapedChildDoesNotCount) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  // Until reaped the child is a zombie; ProcessRuns reaps it and says no.
  for (int i = 0; i < 1000 && ProcessRuns(child, SelfName(), ""); ++i) usleep(1000);
  EXPECT_FALSE(ProcessRuns(child, SelfName(), ""));
}

}  // namespace
}  // namespace vtenant::localenv

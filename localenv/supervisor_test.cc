#include "localenv/supervisor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "base/eventually.h"
#include "base/testing/temp_dir.h"
#include "kube/health_server.h"
#include "kube/kubeconfig.h"
#include "localenv/tools.h"

namespace vtenant::localenv {
namespace {

class SupervisorTest : public ::testing::Test {
 protected:
  // A shell command as a component, its output in <dir>/<name>.log.
  Component Shell(const std::string& name, const std::string& script) {
    return {.name = name,
            .process = {.argv = {"/bin/sh", "-c", script}, .log_path = dir_ + "/" + name + ".log"}};
  }
  // Ticks until `done` holds (the supervisor is single-threaded: its owner
  // drives it).
  bool TickUntil(Supervisor& supervisor, const std::function<bool()>& done) {
    return Eventually([&] {
      supervisor.Tick();
      return done();
    });
  }

  TempDir temp_{"supervisor_test"};
  const std::string dir_ = temp_.path();
};

TEST_F(SupervisorTest, AKilledComponentIsStartedAgainWithTheSameCommandAndCounted) {
  Supervisor supervisor({.first_backoff = std::chrono::milliseconds(10)});
  // Each start appends a line, so the file counts the starts.
  ASSERT_TRUE(
      supervisor.Start(Shell("server", "echo start >> " + dir_ + "/starts; exec sleep 60")).ok());
  const pid_t first = supervisor.Statuses()[0].pid;
  ASSERT_GT(first, 0);
  auto starts = [&] {
    std::ifstream in(dir_ + "/starts");
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
  };
  ASSERT_TRUE(Eventually([&] { return starts() == 1; }));
  ASSERT_EQ(kill(first, SIGKILL), 0);

  ASSERT_TRUE(TickUntil(supervisor, [&] {
    ComponentStatus s = supervisor.Statuses()[0];
    return s.pid > 0 && s.pid != first;
  }));
  ComponentStatus status = supervisor.Statuses()[0];
  EXPECT_EQ(status.restarts, 1);
  EXPECT_EQ(status.last_exit, "killed by signal 9");
  ASSERT_TRUE(Eventually([&] { return starts() == 2; }));
}

TEST_F(SupervisorTest, AComponentThatKeepsFailingWaitsLongerEachTime) {
  Supervisor supervisor({.first_backoff = std::chrono::milliseconds(100),
                         .max_backoff = std::chrono::milliseconds(400)});
  ASSERT_TRUE(supervisor.Start(Shell("broken", "exit 3")).ok());
  // Backoffs of 100, 200, 400, 400 ms: four restarts take at least 1.1 s,
  // and a supervisor without backoff would make dozens in that time.
  const auto begin = std::chrono::steady_clock::now();
  ASSERT_TRUE(TickUntil(supervisor, [&] { return supervisor.Statuses()[0].restarts >= 4; }));
  EXPECT_GE(std::chrono::steady_clock::now() - begin, std::chrono::milliseconds(1100));
  EXPECT_EQ(supervisor.Statuses()[0].last_exit, "exited 3");
}

TEST_F(SupervisorTest, AnAdoptedProcessThatDiesIsStartedAsAChild) {
  // A process from an earlier supervisor: not our child, known by its pid.
  Result<Process> earlier = Process::Start(
      {.argv = {"/bin/sleep", "60"}, .log_path = dir_ + "/earlier.log", .die_with_parent = false});
  ASSERT_TRUE(earlier.ok());
  const pid_t pid = earlier->Release();
  Supervisor supervisor({.first_backoff = std::chrono::milliseconds(10)});
  supervisor.Add({.name = "sleeper",
                  .process = {.argv = {"/bin/sleep", "60"}, .log_path = dir_ + "/sleeper.log"}},
                 Process::Adopt(pid, "sleep"));
  supervisor.Tick();
  EXPECT_EQ(supervisor.Statuses()[0].pid, pid);

  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_TRUE(TickUntil(supervisor, [&] {
    // The zombie of the adopted process is this test's to reap.
    waitpid(pid, nullptr, WNOHANG);
    ComponentStatus s = supervisor.Statuses()[0];
    return s.pid > 0 && s.pid != pid;
  }));
  EXPECT_EQ(supervisor.Statuses()[0].restarts, 1);
  EXPECT_EQ(supervisor.Statuses()[0].last_exit, "gone");
}

TEST_F(SupervisorTest, AFollowerIsRestartedOnceWhatItFollowsIsBack) {
  Supervisor supervisor({.first_backoff = std::chrono::milliseconds(10)});
  ASSERT_TRUE(supervisor.Start(Shell("store", "exec sleep 60")).ok());
  Component agent = Shell("agent", "exec sleep 60");
  agent.restart_after = {"store"};
  ASSERT_TRUE(supervisor.Start(agent).ok());
  ASSERT_TRUE(supervisor.Start(Shell("bystander", "exec sleep 60")).ok());
  const std::vector<ComponentStatus> before = supervisor.Statuses();

  ASSERT_EQ(kill(before[0].pid, SIGKILL), 0);
  ASSERT_TRUE(TickUntil(supervisor, [&] {
    const std::vector<ComponentStatus> now = supervisor.Statuses();
    return now[0].pid > 0 && now[0].pid != before[0].pid && now[1].pid > 0 &&
           now[1].pid != before[1].pid;
  }));
  const std::vector<ComponentStatus> after = supervisor.Statuses();
  EXPECT_EQ(after[1].restarts, 1);
  EXPECT_EQ(after[1].last_exit, "restarted to follow store");
  EXPECT_EQ(after[2].pid, before[2].pid) << "a component that follows nothing was restarted";
  EXPECT_EQ(after[2].restarts, 0);
}

TEST_F(SupervisorTest, StopAllStopsEveryComponentAndRestartsNothing) {
  Supervisor supervisor({.first_backoff = std::chrono::milliseconds(1)});
  ASSERT_TRUE(supervisor.Start(Shell("a", "exec sleep 60")).ok());
  ASSERT_TRUE(supervisor.Start(Shell("b", "exec sleep 60")).ok());
  const pid_t a = supervisor.Statuses()[0].pid;
  const pid_t b = supervisor.Statuses()[1].pid;
  supervisor.StopAll(std::chrono::seconds(2));
  EXPECT_NE(kill(a, 0), 0);
  EXPECT_NE(kill(b, 0), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(supervisor.Tick());
  EXPECT_EQ(supervisor.Statuses()[0].pid, -1);
}

// The operator's process backend: its tenants' processes outlive it, and
// the next operator adopts them.
TEST_F(SupervisorTest, ReleasedComponentsOutliveTheSupervisor) {
  pid_t pid = -1;
  {
    Supervisor supervisor;
    ASSERT_TRUE(supervisor.Start(Shell("server", "exec sleep 60")).ok());
    pid = supervisor.Statuses()[0].pid;
    supervisor.ReleaseAll();
    EXPECT_FALSE(supervisor.Tick());
  }
  ASSERT_GT(pid, 0);
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), 0);  // still running
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST_F(SupervisorTest, ARemovedComponentIsStoppedAndCanBeStartedAnew) {
  Supervisor supervisor({.first_backoff = std::chrono::milliseconds(1)});
  ASSERT_TRUE(supervisor.Start(Shell("syncer", "exec sleep 60")).ok());
  const pid_t old = supervisor.Statuses()[0].pid;
  EXPECT_NE(supervisor.Remove("syncer", std::chrono::seconds(2)), "");
  EXPECT_NE(kill(old, 0), 0);
  EXPECT_TRUE(supervisor.Statuses().empty());
  EXPECT_EQ(supervisor.Find("syncer"), nullptr);
  ASSERT_TRUE(supervisor.Start(Shell("syncer", "exec sleep 61")).ok());
  ASSERT_EQ(supervisor.Statuses().size(), 1u);
  EXPECT_GT(supervisor.Statuses()[0].pid, 0);
  EXPECT_EQ(supervisor.Remove("unknown", std::chrono::seconds(1)), "");
}

TEST_F(SupervisorTest, AMissingBinaryIsAnErrorNowAndRetriedLater) {
  Supervisor supervisor({.first_backoff = std::chrono::milliseconds(10)});
  Status started = supervisor.Start(
      {.name = "gone",
       .process = {.argv = {dir_ + "/no-such-binary"}, .log_path = dir_ + "/g.log"}});
  EXPECT_FALSE(started.ok());
  ASSERT_TRUE(TickUntil(supervisor, [&] { return supervisor.Statuses()[0].restarts >= 2; }));
  EXPECT_NE(supervisor.Statuses()[0].last_exit.find("no-such-binary"), std::string::npos);
}

// Liveness probes due at once and often, so that a test takes milliseconds.
SupervisorOptions QuickLiveness() {
  return {.first_backoff = std::chrono::milliseconds(10),
          .liveness_delay = std::chrono::milliseconds(0),
          .liveness_period = std::chrono::milliseconds(10),
          .liveness_timeout = std::chrono::milliseconds(500),
          .liveness_failures = 3};
}

TEST_F(SupervisorTest, AComponentThatRunsButNoLongerAnswersIsKilledAndStartedAgain) {
  Result<int> port = PickFreeLoopbackPort();
  ASSERT_TRUE(port.ok());
  Supervisor supervisor(QuickLiveness());
  // Runs, but nothing listens where its health endpoint should be: an API
  // server that stopped listening while shutting down and never exited.
  Component hung = Shell("hung", "exec sleep 60");
  hung.health.url = "http://127.0.0.1:" + std::to_string(*port) + "/livez";
  ASSERT_TRUE(supervisor.Start(hung).ok());
  const pid_t first = supervisor.Statuses()[0].pid;

  ASSERT_TRUE(TickUntil(supervisor, [&] {
    ComponentStatus s = supervisor.Statuses()[0];
    return s.pid > 0 && s.pid != first;
  }));
  EXPECT_NE(kill(first, 0), 0) << "the hung process was left running";
  const ComponentStatus status = supervisor.Statuses()[0];
  EXPECT_EQ(status.restarts, 1);
  EXPECT_NE(status.last_exit.find("killed: no answer from " + hung.health.url + " for 3 probes"),
            std::string::npos)
      << status.last_exit;
}

TEST_F(SupervisorTest, AComponentThatAnswersNotReadyIsAliveAndLeftRunning) {
  Result<int> port = PickFreeLoopbackPort();
  ASSERT_TRUE(port.ok());
  // Answers 503 on /readyz: a program waiting for something, not a hung one.
  kube::HealthServer server;
  server.AddReadyCheck("leader", [] { return Unavailable("not the leader"); });
  ASSERT_TRUE(server.Start("127.0.0.1", static_cast<uint16_t>(*port)).ok());
  Supervisor supervisor(QuickLiveness());
  Component waiting = Shell("waiting", "exec sleep 60");
  waiting.health.url = server.url() + "/readyz";
  ASSERT_TRUE(supervisor.Start(waiting).ok());
  const pid_t pid = supervisor.Statuses()[0].pid;

  // Many more probes than liveness_failures, each answered 503.
  for (int i = 0; i < 30; ++i) {
    supervisor.Tick();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(supervisor.Statuses()[0].pid, pid);
  EXPECT_EQ(supervisor.Statuses()[0].restarts, 0);
  EXPECT_FALSE(CheckHealth(waiting.health, std::chrono::seconds(1)).ok());
}

// The supervisor asks each component every few seconds: its prober reads the
// credentials once and keeps its client while it gets answers, and makes a
// new one (reading them again) after a failure.
TEST_F(SupervisorTest, AProberKeepsItsClientWhileItGetsAnswers) {
  Result<int> port = PickFreeLoopbackPort();
  ASSERT_TRUE(port.ok());
  auto server = std::make_unique<kube::HealthServer>();
  ASSERT_TRUE(server->Start("127.0.0.1", static_cast<uint16_t>(*port)).ok());
  const std::string kubeconfig = dir_ + "/probe.kubeconfig";
  {
    kube::RestConfig config;
    config.server = server->url();
    std::ofstream(kubeconfig) << kube::RenderKubeconfig(config, "probe");
  }
  const HealthProbe probe{.url = server->url() + "/healthz", .kubeconfig = kubeconfig};
  HealthProber prober(probe);
  Status first = prober.CheckHealth(std::chrono::seconds(5));
  ASSERT_TRUE(first.ok()) << first.ToString();

  std::filesystem::remove(kubeconfig);
  // A question asked once needs the kubeconfig; the kept client does not.
  EXPECT_FALSE(CheckHealth(probe, std::chrono::seconds(5)).ok());
  for (int i = 0; i < 3; ++i) {
    Status again = prober.CheckAlive(std::chrono::seconds(5));
    EXPECT_TRUE(again.ok()) << again.ToString();
  }

  // Once the server is gone the kept client fails, and the prober, making a
  // new one, reads the kubeconfig again.
  server.reset();
  Status gone = prober.CheckHealth(std::chrono::seconds(5));
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.message().find(kubeconfig), std::string::npos) << gone.ToString();
}

}  // namespace
}  // namespace vtenant::localenv

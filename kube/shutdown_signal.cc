#include "kube/shutdown_signal.h"

#include <fcntl.h>
#include <glog/logging.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace vtenant::kube {
namespace {

constexpr char kSignalByte = 'S';
constexpr char kQuitByte = 'Q';

std::atomic<bool> installed{false};
int pipe_fds[2] = {-1, -1};
struct sigaction previous_term;
struct sigaction previous_int;

void OnSignal(int) {
  const int saved_errno = errno;
  // Nothing to do if the pipe is full: a stop is already on its way.
  [[maybe_unused]] ssize_t n = write(pipe_fds[1], &kSignalByte, 1);
  errno = saved_errno;
}

}  // namespace

Result<std::unique_ptr<ShutdownSignal>> ShutdownSignal::Install(std::function<void()> on_signal) {
  if (installed.exchange(true)) {
    return FailedPrecondition("a shutdown signal handler is already installed");
  }
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    installed = false;
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(SIGTERM, &action, &previous_term) != 0 ||
      sigaction(SIGINT, &action, &previous_int) != 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    installed = false;
    return Internal(std::string("sigaction: ") + std::strerror(errno));
  }
  std::unique_ptr<ShutdownSignal> signal(new ShutdownSignal(std::move(on_signal)));
  signal->watcher_ = std::thread([s = signal.get()] { s->Watch(); });
  return signal;
}

ShutdownSignal::ShutdownSignal(std::function<void()> on_signal)
    : on_signal_(std::move(on_signal)) {}

ShutdownSignal::~ShutdownSignal() {
  sigaction(SIGTERM, &previous_term, nullptr);
  sigaction(SIGINT, &previous_int, nullptr);
  [[maybe_unused]] ssize_t n = write(pipe_fds[1], &kQuitByte, 1);
  if (watcher_.joinable()) watcher_.join();
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  installed = false;
}

void ShutdownSignal::Watch() {
  int signals = 0;
  while (true) {
    char byte = 0;
    ssize_t n = read(pipe_fds[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == kQuitByte) return;
    if (++signals == 1) {
      LOG(INFO) << "signal received: shutting down gracefully (again to exit at once)";
      on_signal_();
    } else {
      LOG(WARNING) << "second signal received: exiting at once";
      _exit(1);
    }
  }
}

}  // namespace vtenant::kube

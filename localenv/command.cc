#include "localenv/command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vtenant::localenv {
namespace {

// Both ends of a pipe, each closed when done with and at the latest when
// the pipe goes out of scope, so that no path out of RunCommand leaks one.
class Pipe {
 public:
  Pipe() = default;
  ~Pipe() {
    Close(0);
    Close(1);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  // Makes the pipe (close-on-exec); false with errno set when it cannot.
  bool Open() { return pipe2(fds_, O_CLOEXEC) == 0; }
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  // Closes end 0 (read) or 1 (write) if still open.
  void Close(int end) {
    if (fds_[end] >= 0) close(fds_[end]);
    fds_[end] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

}  // namespace

Result<CommandResult> RunCommand(const std::vector<std::string>& argv, const std::string& input) {
  if (argv.empty()) return InvalidArgument("empty command");
  // A command that exits before reading its stdin must not kill us with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  if (access(argv[0].c_str(), X_OK) != 0) {
    return FailedPrecondition(argv[0] + " is not executable: " + std::strerror(errno));
  }
  Pipe in_pipe, out_pipe, err_pipe;
  if (!in_pipe.Open() || !out_pipe.Open() || !err_pipe.Open()) {
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return Internal(std::string("fork: ") + std::strerror(errno));  // pipes closed
  if (pid == 0) {
    dup2(in_pipe.read_end(), STDIN_FILENO);
    dup2(out_pipe.write_end(), STDOUT_FILENO);
    dup2(err_pipe.write_end(), STDERR_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  in_pipe.Close(0);
  out_pipe.Close(1);
  err_pipe.Close(1);
  // Feed stdin while draining both outputs, so a chatty command never blocks.
  size_t written = 0;
  if (input.empty()) {
    in_pipe.Close(1);
  } else {
    fcntl(in_pipe.write_end(), F_SETFL, O_NONBLOCK);
  }
  CommandResult result;
  int open_outputs = 2;
  char buf[65536];
  while (open_outputs > 0 || in_pipe.write_end() >= 0) {
    pollfd fds[3] = {{out_pipe.read_end(), POLLIN, 0},
                     {err_pipe.read_end(), POLLIN, 0},
                     {in_pipe.write_end(), POLLOUT, 0}};
    if (poll(fds, 3, -1) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        (i == 0 ? out_pipe : err_pipe).Close(0);
        --open_outputs;
      }
    }
    if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(fds[2].fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) written = input.size();
      if (written >= input.size()) in_pipe.Close(1);
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace vtenant::localenv

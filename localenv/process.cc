#include "localenv/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "base/file.h"

namespace vtenant::localenv {
namespace {

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exited " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

// The children that Process objects of this program started and have not
// reaped or released. Only their owner may reap them: a reap by anyone else
// takes their exit status, and frees their pid (and process group id) for
// reuse while the owner still means to signal it. Counted, not a set: a pid
// reaped by its owner and not yet disowned may already be a new child's.
std::mutex owned_mu;
std::unordered_map<pid_t, int>& OwnedChildren() {
  static auto* owned = new std::unordered_map<pid_t, int>;
  return *owned;
}

void Disown(pid_t pid) {
  std::lock_guard lock(owned_mu);
  auto it = OwnedChildren().find(pid);
  if (it != OwnedChildren().end() && --it->second == 0) OwnedChildren().erase(it);
}

bool IsOwnedLocked(pid_t pid) { return OwnedChildren().contains(pid); }

// Reaps `pid` when it is a child of ours that has exited and no Process here
// owns it (an owner reaps its own child, keeping how it ended); its zombie
// would otherwise read as alive. True when it was reaped.
bool ReapUnownedChild(pid_t pid) {
  std::lock_guard lock(owned_mu);
  int status = 0;
  return !IsOwnedLocked(pid) && waitpid(pid, &status, WNOHANG) == pid;
}

// Whether `pid` is still a child of ours, exited or not, without reaping it.
bool StillOurChild(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

}  // namespace

Process::~Process() { Stop(); }

Process::Process(Process&& other) noexcept
    : pid_(other.pid_),
      owned_child_(other.owned_child_),
      name_(std::move(other.name_)),
      options_(std::move(other.options_)),
      exit_description_(std::move(other.exit_description_)) {
  other.pid_ = -1;
  other.exit_description_.clear();
}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    Stop();
    pid_ = other.pid_;
    owned_child_ = other.owned_child_;
    name_ = std::move(other.name_);
    options_ = std::move(other.options_);
    exit_description_ = std::move(other.exit_description_);
    other.pid_ = -1;
    other.exit_description_.clear();
  }
  return *this;
}

Result<Process> Process::Start(const ProcessOptions& options) {
  if (options.argv.empty()) return InvalidArgument("process needs an executable");
  const std::string& exe = options.argv[0];
  if (access(exe.c_str(), X_OK) != 0) {
    return FailedPrecondition(exe + " is not an executable file (" + std::strerror(errno) +
                              "); run `make deps` to build the Kubernetes binaries");
  }
  int log_fd = open(options.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return Internal("cannot open log " + options.log_path + ": " + std::strerror(errno));
  }
  // Build everything the child needs before fork: only async-signal-safe
  // calls are allowed between fork and exec.
  std::vector<char*> argv;
  for (const auto& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    std::string key = entry.substr(0, entry.find('='));
    if (!options.env.contains(key)) env_strings.push_back(std::move(entry));
  }
  for (const auto& [key, value] : options.env) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (auto& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const pid_t parent = getpid();
  const long max_fd = sysconf(_SC_OPEN_MAX);

  // Owned from the moment it exists: ProcessRuns on another thread must not
  // reap it before it is registered.
  std::unique_lock owned_lock(owned_mu);
  pid_t pid = fork();
  if (pid < 0) {
    const int fork_errno = errno;
    owned_lock.unlock();
    close(log_fd);
    return Internal(std::string("fork: ") + std::strerror(fork_errno));
  }
  if (pid == 0) {
    setpgid(0, 0);
    if (options.die_with_parent) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);  // parent died before prctl
    }
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    if (!options.working_dir.empty() && chdir(options.working_dir.c_str()) != 0) _exit(126);
    if (options.umask) ::umask(*options.umask);
    // Nothing of the parent's but stdin, stdout and stderr: a listening
    // socket the parent opened without close-on-exec (its health server)
    // would otherwise stay bound by the child after the parent dies, and the
    // parent, started again, could not listen on its own port.
    if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0) {
      for (long fd = 3; fd < max_fd; ++fd) close(static_cast<int>(fd));
    }
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  ++OwnedChildren()[pid];
  owned_lock.unlock();
  close(log_fd);
  setpgid(pid, pid);  // also from the parent, so Stop() works even if the child has not run yet
  Process process;
  process.pid_ = pid;
  process.owned_child_ = true;
  process.name_ = std::filesystem::path(exe).filename();
  process.options_ = options;
  return process;
}

Process Process::Adopt(pid_t pid, std::string name) {
  Process process;
  process.pid_ = pid;
  process.owned_child_ = false;
  process.name_ = std::move(name);
  return process;
}

bool Process::Running() {
  if (pid_ <= 0) return false;
  if (owned_child_) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
      // ECHILD: reaped by someone else, its status lost. Its pid may be
      // another process's by now, so it is forgotten, never signalled again.
      exit_description_ = r == pid_ ? DescribeWaitStatus(status) : "gone";
      Disown(pid_);
      pid_ = -1;
      return false;
    }
    return r == 0;
  }
  if (!AdoptedGone()) return true;
  pid_ = -1;
  exit_description_ = "gone";
  return false;
}

bool Process::AdoptedGone() {
  // An adopted process may still be a child of ours (adopted again by the
  // program that started it).
  return ReapUnownedChild(pid_) || kill(pid_, 0) != 0;
}

std::string Process::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return "not running";
  if (owned_child_ && !StillOurChild(pid_)) {
    // Reaped by someone else: its process group id may be another's by now.
    Disown(pid_);
    pid_ = -1;
    return "exited";
  }
  kill(-pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  std::string outcome = "exited";
  while (true) {
    if (owned_child_) {
      int status = 0;
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_ || (r < 0 && errno == ECHILD)) {
        outcome = r == pid_ ? DescribeWaitStatus(status) : "exited";
        break;
      }
    } else if (AdoptedGone()) {
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid_, SIGKILL);
      if (owned_child_) {
        int status = 0;
        waitpid(pid_, &status, 0);
        outcome = DescribeWaitStatus(status);
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Children of the leader (if any) share the group; make sure none survive.
  kill(-pid_, SIGKILL);
  if (owned_child_) Disown(pid_);
  pid_ = -1;
  return outcome;
}

pid_t Process::Release() {
  pid_t pid = pid_;
  // Released, anyone may reap it (ProcessRuns, whoever adopts it).
  if (owned_child_ && pid > 0) Disown(pid);
  pid_ = -1;
  return pid;
}

namespace {

// The command line of process `pid`; empty when it is gone, a zombie or a
// kernel thread.
std::vector<std::string> ReadArgv(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  const std::string stat = ReadFileOrEmpty(proc + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] == 'Z') {
    return {};
  }
  const std::string cmdline = ReadFileOrEmpty(proc + "/cmdline");
  std::vector<std::string> argv;
  for (size_t start = 0; start < cmdline.size();) {
    size_t end = cmdline.find('\0', start);
    if (end == std::string::npos) end = cmdline.size();
    argv.push_back(cmdline.substr(start, end - start));
    start = end + 1;
  }
  return argv;
}

bool Runs(const std::vector<std::string>& argv, const std::string& program,
          const std::string& marker) {
  if (argv.empty() || std::filesystem::path(argv[0]).filename() != program) return false;
  if (marker.empty()) return true;
  for (const auto& a : argv) {
    if (a.find(marker) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

bool ProcessRuns(pid_t pid, const std::string& program, const std::string& marker) {
  if (pid <= 0) return false;
  // A zombie an owner has yet to reap reads as not running below.
  if (ReapUnownedChild(pid)) return false;
  return Runs(ReadArgv(pid), program, marker);
}

pid_t FindRunning(const std::string& program, const std::string& marker, pid_t recorded) {
  if (ProcessRuns(recorded, program, marker)) return recorded;
  for (const RunningProcess& p : ListProcesses()) {
    if (Runs(p.argv, program, marker)) return p.pid;
  }
  return -1;
}

std::vector<RunningProcess> ListProcesses() {
  std::vector<RunningProcess> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    RunningProcess p{.pid = pid, .argv = ReadArgv(pid)};
    if (p.argv.empty()) continue;
    std::error_code cwd_ec;
    p.cwd = std::filesystem::read_symlink(entry.path() / "cwd", cwd_ec).string();
    found.push_back(std::move(p));
  }
  return found;
}

}  // namespace vtenant::localenv

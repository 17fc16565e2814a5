// A child process started from argv, with its output captured in a log file.
//
// Local control planes are made of real binaries (etcd, kube-apiserver, ...)
// that must never outlive the program or test that started them, so every
// Process runs in its own process group and Stop() signals the whole group.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace vtenant::localenv {

struct ProcessOptions {
  std::vector<std::string> argv;           // argv[0] is the executable path
  std::string log_path;                    // stdout and stderr go here (appended)
  std::map<std::string, std::string> env;  // added to the inherited environment
  std::string working_dir;                 // empty: inherit
  // The child's umask; unset: inherit (the local environment's is 077).
  std::optional<mode_t> umask;
  // Kill the child when the starting thread dies (PR_SET_PDEATHSIG). Tests
  // want this so a crashed test leaves nothing behind; a daemonised local
  // environment (`vtenant up`) does not. Note it is the *thread* that
  // matters: start long-lived children from a thread that lives as long.
  bool die_with_parent = true;
};

class Process {
 public:
  Process() = default;
  ~Process();  // Stops the process if still running.
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  // A move takes everything, exit_description() included, and leaves
  // `other` empty.
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;

  // Forks and execs options.argv in a new process group, stdin /dev/null,
  // no descriptor of ours but the log inherited. FailedPrecondition if the
  // executable is missing or not executable (checked before forking, so the
  // error names the path); InvalidArgument for an empty argv; Internal when
  // the log cannot be opened or fork fails. A working folder the child
  // cannot enter makes it exit 126, an exec that fails 127.
  static Result<Process> Start(const ProcessOptions& options);

  // Adopts an already running process group leader (e.g. from a pid file).
  // Nothing is checked: ProcessRuns first.
  static Process Adopt(pid_t pid, std::string name);

  pid_t pid() const { return pid_; }
  const std::string& name() const { return name_; }
  // What Start was given (empty for an adopted process): a supervisor
  // starts the same command again after it exits.
  const ProcessOptions& options() const { return options_; }

  // True while the child has not exited. Reaps it if it has, and records
  // how it ended. A child of ours that something else reaped (a waitpid
  // outside this class) reads as ended, "gone", and its pid is forgotten:
  // it may be another process's by now.
  bool Running();

  // How the process ended, once Running() has seen it end: "exited 1",
  // "killed by signal 9"; "gone" for an adopted process, whose status only
  // its parent can read. Empty before.
  const std::string& exit_description() const { return exit_description_; }

  // SIGTERM to the process group, then SIGKILL after `grace`, then SIGKILL
  // to the group again for children that outlived the leader. Idempotent.
  // A child of ours that something else reaped is not signalled at all.
  // Returns the exit description ("exited 0", "killed by signal 9"; only
  // "exited" for an adopted process, "not running" when there is none); it
  // is not kept for exit_description().
  std::string Stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

  // Forgets the child without stopping it (for daemonised environments);
  // returns its pid (-1 when there was none).
  pid_t Release();

 private:
  // For an adopted process: true once it no longer exists, or once it
  // turned out to be a child of ours after all and is reaped here (its
  // zombie would otherwise answer kill(pid, 0) until Stop's grace ran out).
  bool AdoptedGone();

  pid_t pid_ = -1;
  bool owned_child_ = false;  // false when adopted: we cannot waitpid() it
  std::string name_;
  ProcessOptions options_;
  std::string exit_description_;
};

// The process of one server the local environment starts (etcd, an API
// server, a controller manager, kwok), with the accessors each of their
// wrappers offers, written once. The process stops when the wrapper is
// destroyed, unless it was released or taken first.
class ServerProcess {
 public:
  ~ServerProcess() { Stop(); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  pid_t pid() const { return process_.pid(); }
  // Stops the server (Process::Stop); its data stays. Idempotent.
  void Stop() { process_.Stop(); }
  // Forgets the process without stopping it (daemonised environments).
  pid_t Release() { return process_.Release(); }
  // Hands the process to a supervisor; Stop() no longer touches it.
  Process TakeProcess() { return std::move(process_); }

 protected:
  ServerProcess() = default;

  Process process_;
  std::string log_path_;
};

// Whether `pid` is alive and runs `program` (basename of argv[0]) with an
// argument containing `marker` (empty: any); a zombie is not. Reaps it if
// it is a zombie child of ours, unless a Process here started it and still
// holds it (not released): that child is its owner's to reap, which alone
// reads how it ended and knows its pid is free. This is how a recorded pid
// is trusted before it is adopted: a recycled pid running something else
// does not count.
bool ProcessRuns(pid_t pid, const std::string& program, const std::string& marker);

// The pid of a process running `program` with an argument containing
// `marker`: `recorded` when ProcessRuns says so of it, otherwise the first
// of ListProcesses; -1 if none. The scan finds what a pid record cannot: a
// server started by a program killed before it wrote the record.
pid_t FindRunning(const std::string& program, const std::string& marker, pid_t recorded = -1);

// A process as /proc shows it.
struct RunningProcess {
  pid_t pid = -1;
  std::vector<std::string> argv;  // never empty
  std::string cwd;                // its working folder; empty when not readable
};

// The processes running now, this one included, by scanning /proc: all but
// zombies and kernel threads (which have no command line).
std::vector<RunningProcess> ListProcesses();

}  // namespace vtenant::localenv

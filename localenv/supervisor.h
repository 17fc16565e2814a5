// Supervisor: keeps the programs of a local environment running. A program
// that exits is started again with the same command line (same ports, same
// data folders), after a backoff that doubles while it keeps failing, and
// every restart is counted so that `vtenant status` can show it. A program
// that still runs but no longer answers on its health endpoint for a while is
// killed and started again, as a kubelet does on a failed liveness probe.
//
// One Supervisor runs in the `vtenant supervise` process that `vtenant up`
// leaves behind, and one per tenant in the operator's process backend; it
// is single-threaded: its owner calls Tick() in a loop.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"
#include "localenv/health_probe.h"
#include "localenv/process.h"

namespace vtenant::localenv {

// One program the supervisor keeps running.
struct Component {
  std::string name;        // "etcd", "kube-apiserver", "vtenant-scheduler", ...
  ProcessOptions process;  // how to start it; die_with_parent is ignored (false)
  // How `vtenant status` tells that it answers, and how the supervisor tells
  // that it is alive: answering at all, whatever the status (CheckAlive).
  // No URL: never asked, a running process is alive.
  HealthProbe health;
  // Components whose restart this one must follow: when the supervisor
  // starts one of them again, it restarts this one too, once all of them
  // answer their health probes. For a program that gives up on work that
  // failed while they were down (kwok drops a pod's stage that failed to
  // apply until its next full resync, minutes later).
  std::vector<std::string> restart_after;
};

// What the supervisor knows about one component now.
struct ComponentStatus {
  std::string name;
  pid_t pid = -1;         // -1 while it waits to be started again
  int restarts = 0;       // how often it exited and was started again
  std::string last_exit;  // "killed by signal 9": how it last ended; empty if never
};

struct SupervisorOptions {
  std::chrono::milliseconds first_backoff{500};
  std::chrono::milliseconds max_backoff{30000};
  // A run at least this long was a success: the next failure waits only
  // first_backoff again.
  std::chrono::milliseconds stable_after{60000};
  // Liveness: after liveness_delay from its start, a component with a health
  // endpoint is asked every liveness_period; after liveness_failures probes
  // in a row without an answer within liveness_timeout it is killed and
  // started again. An API server whose store vanished while it shut down
  // stops listening and never exits: without this it would count as running
  // for ever. The defaults allow a minute and a half of no answer, longer
  // than any of these programs takes to start listening.
  std::chrono::milliseconds liveness_delay{30000};
  std::chrono::milliseconds liveness_period{10000};
  std::chrono::milliseconds liveness_timeout{5000};
  int liveness_failures = 6;
};

class Supervisor {
 public:
  explicit Supervisor(SupervisorOptions options = {}) : options_(options) {}
  // Stops every component (StopAll with a short grace).
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Takes over `running`, a process started by this program or adopted from
  // a record (Process::Adopt), as `component`. Its liveness is first asked
  // liveness_delay from now. A component never dies with its parent: its
  // die_with_parent is set false here, as in Start.
  void Add(Component component, Process running);

  // Starts `component` and takes it over. When the start fails the error is
  // returned and the component is still kept: Tick() tries again later.
  Status Start(Component component);

  // Notices the components that exited (reaping those that are our
  // children), asks the running ones that are due whether they are alive
  // (killing one after liveness_failures failures), starts again those whose
  // backoff has passed, and restarts the followers (restart_after) of any it
  // started once all they follow answer their health probes. The probes run
  // here, so a Tick may take up to liveness_timeout per component. Returns
  // true when anything changed (a pid, a count), so the owner saves its
  // record. Does nothing after StopAll or ReleaseAll.
  bool Tick();

  // Stops every component, the last added first, each given `grace` after
  // SIGTERM before SIGKILL. Nothing is restarted afterwards. Returns, for
  // each that ran, "<name>: <how it ended> after <ms> ms", in stop order.
  std::vector<std::string> StopAll(std::chrono::milliseconds grace);

  // Stops the component `name` as StopAll does, for good (a program whose
  // dependants must stop before the others). Returns what StopAll would
  // say of it; empty when it was not running or is unknown (a known one that
  // was not running is still never started again).
  std::string StopOne(const std::string& name, std::chrono::milliseconds grace);

  // Stops the component `name` as StopOne does and forgets it, so that it
  // can be started again with another command line. Returns what StopOne
  // would say of it.
  std::string Remove(const std::string& name, std::chrono::milliseconds grace);

  // Forgets every component without stopping it: they outlive this
  // supervisor, for an owner that adopts them again when it starts (the
  // operator's process backend, whose restart must not restart every
  // tenant's control plane). Nothing is restarted afterwards.
  void ReleaseAll();

  std::vector<ComponentStatus> Statuses() const;
  const Component* Find(const std::string& name) const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    Component component;
    Process process;
    bool up = false;  // process runs (or ran until the last Tick)
    int restarts = 0;
    std::string last_exit;
    Clock::time_point started;
    Clock::time_point next_start;  // while not running
    std::chrono::milliseconds backoff{0};
    bool retired = false;      // stopped for good by StopOne
    std::string follow_cause;  // the component in restart_after that was restarted; empty: none
    Clock::time_point next_liveness;     // when to ask whether it is alive next
    int liveness_failed = 0;             // probes without an answer, in a row
    std::string liveness_error;          // the last of them
    HealthProber prober{HealthProbe{}};  // component.health's, kept across probes
  };
  // Asks a running entry whether it is alive, when due; returns false once it
  // has failed options_.liveness_failures probes in a row.
  bool Alive(Entry& entry, Clock::time_point now);
  // Restarts the components with a follow_cause once what they follow
  // answers. Returns true when it restarted any.
  bool RestartFollowers(Clock::time_point now);
  std::string StopEntry(Entry& entry, std::chrono::milliseconds grace);
  void Launch(Entry& entry, Clock::time_point now, Status* error);

  SupervisorOptions options_;
  std::vector<Entry> entries_;
  bool stopped_ = false;
};

}  // namespace vtenant::localenv

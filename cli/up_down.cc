// `vtenant up`, `down`, `delete` and `status`: the local environment's
// lifecycle. `up` starts a supervisor (`vtenant supervise`, supervise.cc)
// that builds or resumes the environment and keeps it running; the others
// read its record and signal it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "base/eventually.h"
#include "base/secret_file.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/environment_state.h"
#include "cli/node_table.h"
#include "cli/programs.h"
#include "cli/table.h"
#include "cli/up_options.h"
#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "localenv/environment_processes.h"
#include "localenv/gpu_nodes.h"
#include "localenv/process.h"
#include "localenv/real_node.h"
#include "operator/state_layout.h"

namespace vtenant::cli {
namespace fs = std::filesystem;

namespace {

// True when nothing listens on 127.0.0.1:port (we could bind it).
bool PortIsFree(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool free = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return free;
}

void PrintHowToReach(const std::string& kubeconfig, const std::string& state_dir) {
  std::cout << "\nHost cluster kubeconfig: " << kubeconfig << "\n"
            << "  export KUBECONFIG=" << kubeconfig << "\n"
            << "  kubectl get nodes        (kubectl is in .tools/bin)\n"
            << "Tenants: kubectl apply -k examples/tenants, then\n"
            << "  vtenant tenants; vtenant queues; vtenant kubeconfig nlp > nlp.kubeconfig\n"
            << "Logs: " << state_dir << "/*/*.log\n"
            << "Health and restarts: vtenant status\n"
            << "Stop, keeping the data: vtenant down;  remove everything: vtenant delete\n";
}

Result<std::unique_ptr<kube::RestClient>> HostClient(const EnvironmentState& state) {
  VT_ASSIGN_OR_RETURN(kube::RestConfig config, kube::LoadKubeconfig(state.kubeconfig));
  config.timeout = std::chrono::seconds(5);
  return kube::RestClient::Create(config);
}

// The first line of `text`, at most `width` characters.
std::string OneLine(const std::string& text, size_t width) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > width ? line.substr(0, width - 3) + "..." : line;
}

// One line per component: what runs, how often it was restarted, whether it
// answers its health probe now. Returns true when every one runs and answers.
bool PrintComponents(const EnvironmentState& state, std::ostream& out) {
  bool all_well = true;
  Table table({"COMPONENT", "PID", "STATE", "RESTARTS", "HEALTH", "LAST EXIT"});
  for (const ComponentRecord& c : state.components) {
    const bool running = localenv::ProcessRuns(c.pid, ProgramOf(c.component), "");
    std::string health = "-";
    if (running && !c.component.health.url.empty()) {
      Status healthy = localenv::CheckHealth(c.component.health, std::chrono::seconds(3));
      health = healthy.ok() ? "ok" : "failing: " + OneLine(healthy.message(), 60);
      all_well = all_well && healthy.ok();
    } else if (running) {
      health = "running (no endpoint)";
    }
    all_well = all_well && running;
    table.AddRow({c.component.name, running ? std::to_string(c.pid) : "-",
                  running ? "running" : "stopped", std::to_string(c.restarts), health,
                  c.last_exit.empty() ? "-" : OneLine(c.last_exit, 60)});
  }
  table.Print(out);
  return all_well;
}

// Starts `vtenant supervise` for the environment in `dir` and shows its
// output until it is ready (0) or has failed (1).
int StartSupervisor(const std::string& dir, const std::vector<std::string>& up_args) {
  std::error_code ec;
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    std::cerr << "vtenant up: cannot find this program's binary: " << ec.message() << "\n";
    return 1;
  }
  const std::string log = dir + "/supervisor.log";
  std::ifstream::pos_type shown = 0;
  if (fs::exists(log)) shown = static_cast<std::ifstream::pos_type>(fs::file_size(log));
  std::vector<std::string> argv = {self, "--state-dir", dir, "supervise"};
  argv.insert(argv.end(), up_args.begin(), up_args.end());
  Result<localenv::Process> supervisor =
      localenv::Process::Start({.argv = argv, .log_path = log, .die_with_parent = false});
  if (!supervisor.ok()) {
    std::cerr << "vtenant up: starting the supervisor: " << supervisor.status().ToString() << "\n";
    return 1;
  }
  // Echo the supervisor's log from where it stood, until it is ready.
  auto show_new_lines = [&] {
    std::ifstream in(log);
    in.seekg(shown);
    std::string line;
    while (std::getline(in, line)) {
      if (in.eof()) break;  // half a line: read it next time
      std::cout << line << "\n";
      shown = in.tellg();
    }
    std::cout.flush();
  };
  while (true) {
    show_new_lines();
    if (!supervisor->Running()) {
      show_new_lines();
      std::cerr << "vtenant up: the supervisor " << supervisor->exit_description()
                << "; its log: " << log << "\nvtenant up: the state folder " << dir
                << " is kept; fix the cause and run `vtenant up` again\n";
      return 1;
    }
    Result<EnvironmentState> state = EnvironmentState::Load(dir);
    // The record of this supervisor, not of one before it.
    if (state.ok() && state->supervisor_pid == supervisor->pid() && state->phase == "ready") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  show_new_lines();
  supervisor->Release();  // it outlives this command
  return 0;
}

// After `up` has started or found the environment: the nodes and how to use it.
int ReportReady(const std::string& dir) {
  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  if (!state.ok()) {
    std::cerr << "vtenant up: " << state.status().ToString() << "\n";
    return 1;
  }
  Result<std::unique_ptr<kube::RestClient>> client = HostClient(*state);
  if (client.ok()) {
    const int ready = WaitForReadyNodes(**client, 30);
    std::cout << "vtenant: host cluster up with " << ready << " ready node(s)\n\n";
    if (Status printed = PrintNodes(**client, std::cout); !printed.ok()) {
      std::cerr << "vtenant up: listing nodes: " << printed.ToString() << "\n";
    }
  }
  PrintHowToReach(state->kubeconfig, dir);
  return 0;
}

}  // namespace

std::string OperatorStateDir(const std::string& dir) { return dir + "/operator"; }

std::string StateDir(const GlobalOptions& global) {
  return fs::absolute(global.state_dir).lexically_normal().string();
}

int RunUp(const GlobalOptions& global, const std::vector<std::string>& args) {
  UpOptions options;
  if (int code = ParseUpOptions("up", args, options); code >= 0) return code;
  const std::string dir = StateDir(global);
  // The state folder holds every key, certificate, token and kubeconfig of
  // the environment, and the data of every cluster in it: whatever this
  // command or the supervisor it starts writes there is its owner's alone.
  ::umask(077);
  Result<EnvironmentState> existing = EnvironmentState::Load(dir);
  if (existing.ok() && existing->SupervisorRunning()) {
    std::cout << "vtenant: local environment already running in " << dir << " (supervisor pid "
              << existing->supervisor_pid << ")\n\n";
    PrintComponents(*existing, std::cout);
    const std::vector<std::string> alive = existing->Alive();
    if (alive.size() < existing->components.size()) {
      std::cout << "\nvtenant: " << existing->components.size() - alive.size()
                << " component(s) not running; the supervisor is starting them again "
                   "(`vtenant status` to follow)\n";
    }
    if (auto client = HostClient(*existing); client.ok()) {
      std::cout << "\n";
      (void)PrintNodes(**client, std::cout);
    }
    PrintHowToReach(existing->kubeconfig, dir);
    return 0;
  }
  if (existing.ok() && !existing->components.empty()) {
    const std::vector<std::string> alive = existing->Alive();
    std::cout << "vtenant: resuming the environment in " << dir << " with its data ("
              << alive.size() << " of " << existing->components.size()
              << " components still running; the options given apply only to a new one)\n";
    if (int code = StartSupervisor(dir, {}); code != 0) return code;
    return ReportReady(dir);
  }
  if (!existing.ok() && existing.status().code() != StatusCode::kNotFound) {
    std::cerr << "vtenant up: " << existing.status().message()
              << ".\nvtenant up: nothing was changed. Run `vtenant delete` to remove " << dir
              << " (its data is lost), or pick another --state-dir\n";
    return 1;
  }
  if (existing.ok() || (fs::exists(dir) && !fs::is_empty(dir))) {
    std::cerr << "vtenant up: " << dir << " holds a half-built environment"
              << (existing.ok() ? " (no component was recorded)" : " (no state.yaml)")
              << ".\nvtenant up: nothing was changed. Run `vtenant delete` to remove it, or "
                 "pick another --state-dir\n";
    return 1;
  }

  // A new environment. What can be checked here is, so that a mistake is
  // reported before anything starts.
  if (Result<std::vector<localenv::SimulatedNode>> nodes =
          localenv::LoadNodeInventory(options.nodes_path);
      !nodes.ok()) {
    std::cerr << "vtenant up: " << nodes.status().message() << "\n";
    return 1;
  }
  if (options.port != 0 && !PortIsFree(options.port)) {
    std::cout << "vtenant: port " << options.port
              << " on 127.0.0.1 is in use (another API server, or an environment started "
                 "elsewhere); using a free port instead\n";
    options.port = 0;
  }
  if (Status s = EnsurePrivateDirectory(dir); !s.ok()) {
    std::cerr << "vtenant up: " << s.ToString() << "\n";
    return 1;
  }
  if (int code = StartSupervisor(dir, UpArguments(options)); code != 0) return code;
  return ReportReady(dir);
}

namespace {

// Stops the environment in `dir`, keeping its data. Returns false when
// something could not be stopped.
bool Stop(const std::string& dir) {
  const auto begin = std::chrono::steady_clock::now();
  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  if (state.ok() && state->SupervisorRunning()) {
    // The supervisor stops its components in order and the tenants' processes.
    kill(state->supervisor_pid, SIGTERM);
    const pid_t pid = state->supervisor_pid;
    if (!Eventually(
            [&] {
              return !localenv::ProcessRuns(pid, "vtenant", "") &&
                     !localenv::ProcessRuns(pid, "kubectl-vtenant", "");
            },
            std::chrono::seconds(60), std::chrono::milliseconds(50))) {
      std::cerr << "vtenant: the supervisor (pid " << pid
                << ") did not stop within 60 s; stopping its components directly\n";
      kill(pid, SIGKILL);
    }
  }
  // Without a supervisor (killed, or after a reboot), what is recorded is
  // stopped here, newest first, and anything else working in the folder.
  if (state.ok()) {
    for (auto it = state->components.rbegin(); it != state->components.rend(); ++it) {
      if (!localenv::ProcessRuns(it->pid, ProgramOf(it->component), "")) continue;
      localenv::Process::Adopt(it->pid, it->component.name).Stop(std::chrono::seconds(5));
    }
  }
  // The real node's pods outlive their kubelet and containerd's shims.
  if (int killed = localenv::KillRealNodeContainers(dir); killed > 0) {
    std::cout << "vtenant: stopped " << killed << " process(es) of the real node's pods\n";
  }
  if (int stopped = localenv::StopEnvironmentProcesses(dir, std::chrono::seconds(5)); stopped > 0) {
    std::cout << "vtenant: stopped " << stopped << " more process(es) working in " << dir << "\n";
  }
  const bool clean = localenv::FindEnvironmentProcesses(dir).empty();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::ostringstream took;
  took << std::fixed << std::setprecision(1) << seconds;
  std::cout << "vtenant: local environment in " << dir << " stopped in " << took.str() << " s\n";
  return clean;
}

constexpr char kDownText[] =
    R"(Stops everything `vtenant up` started (the host cluster, vtenant-scheduler,
vtenant-operator, the tenants' control planes and syncers) and keeps the
data: `vtenant up` starts the same environment again, with its Tenants, their
kubeconfigs and their pods.

  --purge   also remove the state folder and all its data (= vtenant delete)
)";

constexpr char kDeleteText[] =
    R"(Stops the local environment and removes its state folder: the host
cluster's data, every tenant's control plane and data, the logs and the
credentials. Cannot be undone.
)";

// Removes `dir`, saying what it held.
int Purge(const std::string& dir) {
  const fs::path tenant_folders = op::TenantsFolder(OperatorStateDir(dir));
  int tenants = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(tenant_folders, ec)) {
    if (entry.is_directory()) ++tenants;
  }
  // A real node leaves mounts in the folder and a namespace and a cgroup
  // outside it.
  if (fs::exists(dir + "/node")) {
    if (Status removed = localenv::RemoveRealNode(dir); !removed.ok()) {
      std::cerr << "vtenant: removing the real node: " << removed.ToString() << "\n";
    }
  }
  fs::remove_all(dir, ec);
  if (ec) {
    std::cerr << "vtenant: " << dir << " could not be removed: " << ec.message() << "\n";
    return 1;
  }
  std::cout << "vtenant: removed " << dir << " (the host cluster's data, " << tenants
            << " tenant folder(s) under " << fs::relative(tenant_folders, dir).string()
            << "/, logs and credentials)\n";
  return 0;
}

// The local environment's folder; nothing, after saying there is nothing to
// `verb`, when there is none.
std::optional<std::string> ExistingStateDir(const GlobalOptions& global, const char* verb) {
  std::string dir = StateDir(global);
  if (fs::exists(dir)) return dir;
  std::cout << "vtenant: nothing to " << verb << " (no local environment in " << dir << ")\n";
  return std::nullopt;
}

}  // namespace

int RunDown(const GlobalOptions& global, const std::vector<std::string>& args) {
  SplitCommandLine split;
  bool purge = false;
  if (int code = ReadFlags("vtenant down", args, {SwitchFlag("purge", &purge)}, Words::kRefuse,
                           std::string("Usage: vtenant down [--purge]\n\n") + kDownText, split);
      code >= 0) {
    return code;
  }
  const std::optional<std::string> dir = ExistingStateDir(global, "stop");
  if (!dir) return 0;
  const bool clean = Stop(*dir);
  if (purge) return Purge(*dir);
  if (!clean) {
    std::cerr << "vtenant down: some processes working in " << *dir << " could not be stopped\n";
    return 1;
  }
  std::cout << "vtenant: its data is kept: `vtenant up` starts it again, `vtenant delete` "
               "removes it\n";
  return 0;
}

int RunDelete(const GlobalOptions& global, const std::vector<std::string>& args) {
  if (int code = CheckNoArgs("vtenant delete", args,
                             std::string("Usage: vtenant delete\n\n") + kDeleteText);
      code >= 0) {
    return code;
  }
  const std::optional<std::string> dir = ExistingStateDir(global, "delete");
  if (!dir) return 0;
  Stop(*dir);
  return Purge(*dir);
}

int RunStatus(const GlobalOptions& global, const std::vector<std::string>& args) {
  if (int code = CheckNoArgs("vtenant status", args,
                             "Usage: vtenant status\n\nShows the local environment's supervisor, "
                             "each component (pid, restarts, whether it answers its health "
                             "endpoint, how it last exited), the tenants' processes working in "
                             "the state folder, and the simulated nodes. Exits 1 when anything is "
                             "not running or not healthy.\n");
      code >= 0) {
    return code;
  }
  const std::string dir = StateDir(global);
  Result<EnvironmentState> state = EnvironmentState::Load(dir);
  if (!state.ok()) {
    std::cout << "vtenant: no local environment (" << state.status().message()
              << "); start one with `vtenant up`\n";
    return 1;
  }
  bool healthy = true;
  if (state->SupervisorRunning()) {
    std::cout << "supervisor: running (pid " << state->supervisor_pid << "), phase " << state->phase
              << "\n";
  } else {
    healthy = false;
    std::cout << "supervisor: not running (" << (state->phase.empty() ? "?" : state->phase)
              << "); `vtenant up` starts what is stopped, with the same data\n";
  }
  if (!state->message.empty()) std::cout << "last error: " << state->message << "\n";
  std::cout << "\n";
  if (!PrintComponents(*state, std::cout)) healthy = false;
  std::set<pid_t> recorded;
  for (const ComponentRecord& c : state->components) recorded.insert(c.pid);
  int tenant_processes = 0;
  for (const localenv::EnvironmentProcess& p : localenv::FindEnvironmentProcesses(dir)) {
    if (!recorded.contains(p.pid)) ++tenant_processes;
  }
  std::cout << "\ntenants: " << tenant_processes << " process(es) under " << OperatorStateDir(dir)
            << "\n";
  Result<std::unique_ptr<kube::RestClient>> client = HostClient(*state);
  if (!client.ok()) return 1;
  std::cout << "\n";
  if (Status printed = PrintNodes(**client, std::cout); !printed.ok()) {
    std::cerr << "vtenant status: host API server unreachable: " << printed.ToString() << "\n";
    return 1;
  }
  return healthy ? 0 : 1;
}

}  // namespace vtenant::cli

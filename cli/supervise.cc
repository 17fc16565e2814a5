// `vtenant supervise`: the process `vtenant up` leaves running. It builds
// the local environment (or starts again the one recorded in the state
// folder), then keeps every component running until SIGTERM (`vtenant
// down`), recording each one's pid and restarts in <state>/state.yaml. Its
// output, <state>/supervisor.log, is what `up` shows while it waits.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <thread>

#include "base/secret_file.h"
#include "cli/commands.h"
#include "cli/environment_state.h"
#include "cli/programs.h"
#include "cli/up_options.h"
#include "localenv/chart_accounts.h"
#include "localenv/environment_processes.h"
#include "localenv/local_cluster.h"
#include "localenv/real_node.h"
#include "localenv/supervisor.h"
#include "localenv/tools.h"

namespace vtenant::cli {
namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_stop{false};
void RequestStop(int) { g_stop = true; }

// The namespace of the chart's accounts, as `helm install --namespace` would
// make it; the scheduler's reservation pods live there too.
constexpr char kSystemNamespace[] = "vtenant-system";
constexpr char kKubeSchedulerUser[] = "system:kube-scheduler";

// How long a (re)started component may take to answer its health probe.
constexpr auto kReadyTimeout = std::chrono::seconds(120);

// The *.yaml files of `dir`, sorted. NotFound when there are none.
Result<std::vector<std::string>> YamlFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  if (ec || files.empty()) {
    return NotFound("no CRDs (*.yaml) in " + dir + (ec ? " (" + ec.message() + ")" : "") +
                    "; run from the source tree or pass --crds");
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Waits until the component just started answers its probe (kwok, without
// one, until it has run half a second), or gives up after kReadyTimeout.
Status WaitHealthy(localenv::Supervisor& supervisor, const localenv::Component& component) {
  if (component.health.url.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  } else {
    const auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
    Status last;
    while (std::chrono::steady_clock::now() < deadline && !g_stop) {
      last = localenv::CheckHealth(component.health, std::chrono::seconds(5));
      if (last.ok()) return Status::Ok();
      // The others (and this one, should it exit) stay supervised meanwhile.
      supervisor.Tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return Unavailable(component.name + " did not answer " + component.health.url + " (" +
                       last.message() + "); the end of " + component.process.log_path + ":\n" +
                       LogTail(component.process.log_path, 15));
  }
  for (const localenv::ComponentStatus& s : supervisor.Statuses()) {
    if (s.name == component.name && s.pid <= 0) {
      return Unavailable(component.name + " exited while starting (" + s.last_exit +
                         "); the end of " + component.process.log_path + ":\n" +
                         LogTail(component.process.log_path, 15));
    }
  }
  return Status::Ok();
}

// Keeps `state` in step with the supervisor and saves it.
class Record {
 public:
  Record(std::string dir, EnvironmentState state)
      : dir_(std::move(dir)), state_(std::move(state)) {}
  EnvironmentState& state() { return state_; }

  Status Save(const localenv::Supervisor& supervisor) {
    std::vector<ComponentRecord> components;
    for (const localenv::ComponentStatus& s : supervisor.Statuses()) {
      components.push_back({.component = *supervisor.Find(s.name),
                            .pid = s.pid,
                            .restarts = s.restarts,
                            .last_exit = s.last_exit});
    }
    // Components recorded earlier but not (yet) supervised keep their record.
    for (const ComponentRecord& old : state_.components) {
      if (supervisor.Find(old.component.name) == nullptr) components.push_back(old);
    }
    state_.components = std::move(components);
    return state_.Save(dir_);
  }

 private:
  std::string dir_;
  EnvironmentState state_;
};

// Starts one vtenant program under the supervisor and waits until it
// answers; a missing binary is a warning, not a failure: the host cluster is
// useful without it, and the message says what to build.
Status StartProgram(localenv::Supervisor& supervisor, const std::string& name,
                    const std::string& binary_override, const std::string& build_subdir,
                    std::vector<std::string> args, const std::string& dir) {
  Result<std::string> binary = FindVtenantProgram(binary_override, build_subdir, name);
  if (!binary.ok()) {
    std::cout << "vtenant: not starting " << name << ": " << binary.status().message() << "\n";
    return Status::Ok();
  }
  VT_ASSIGN_OR_RETURN(int port, localenv::PickFreeLoopbackPort());
  const std::string health = "127.0.0.1:" + std::to_string(port);
  std::vector<std::string> argv = {*binary, "--health-address=" + health};
  argv.insert(argv.end(), args.begin(), args.end());
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(dir + "/" + name));
  localenv::Component component{
      .name = name,
      .process = {.argv = argv, .log_path = dir + "/" + name + "/" + name + ".log"},
      .health = {.url = "http://" + health + "/readyz"}};
  VT_RETURN_IF_ERROR(supervisor.Start(component));
  VT_RETURN_IF_ERROR(WaitHealthy(supervisor, component));
  std::cout << "vtenant: " << name << " running (pid " << supervisor.Statuses().back().pid
            << ", health on " << health << ")" << std::endl;
  return Status::Ok();
}

// The real node's settings for the environment in `dir`.
localenv::RealNodeOptions RealNodeOptionsFor(const UpOptions& options, const std::string& dir) {
  std::error_code ec;
  return {.dir = dir + "/node",
          .host_dir = dir + "/host",
          .api_server_port = 0,
          .vtenant_binary = fs::read_symlink("/proc/self/exe", ec).string(),
          .images_script = options.images_script,
          .gpu = options.real_node_gpu,
          .pods_reach_api_server = options.cluster_only};
}

// Starts the real node's programs under `supervisor`, imports its images
// and waits until the node is Ready.
Status StartRealNode(localenv::RealNodeOptions node, int api_server_port, kube::Client& client,
                     localenv::Supervisor& supervisor, Record& record) {
  node.api_server_port = api_server_port;
  std::cout << "vtenant: starting the real node " << localenv::kRealNodeName
            << " in network namespace "
            << localenv::NetnsName(fs::path(node.dir).parent_path().string()) << " ..."
            << std::endl;
  VT_RETURN_IF_ERROR(
      localenv::PrepareRealNode(node, client).WithContext("preparing the real node"));
  std::chrono::steady_clock::time_point kubelet_started;
  for (const localenv::Component& component : localenv::RealNodeComponents(node)) {
    VT_RETURN_IF_ERROR(EnsurePrivateDirectory(fs::path(component.process.log_path).parent_path()));
    if (component.name == "kubelet") kubelet_started = std::chrono::steady_clock::now();
    VT_RETURN_IF_ERROR(supervisor.Start(component).WithContext("starting " + component.name));
    VT_RETURN_IF_ERROR(WaitHealthy(supervisor, component));
    VT_RETURN_IF_ERROR(record.Save(supervisor));
    if (component.name == "containerd") {
      VT_RETURN_IF_ERROR(localenv::ImportRealNodeImages(node, std::chrono::seconds(60)));
    }
  }
  VT_RETURN_IF_ERROR(localenv::WaitRealNodeReady(node, client, std::chrono::seconds(120)));
  std::cout << "vtenant: node " << localenv::kRealNodeName << " Ready ("
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - kubelet_started)
                   .count()
            << " ms after the kubelet started)" << std::endl;
  return Status::Ok();
}

// A new environment in `dir`: the host cluster, the CRDs, the chart's
// accounts, the scheduler and the operator, each under `supervisor`; with
// options.cluster_only the host cluster and its nodes alone.
Status Build(const UpOptions& options, const std::string& dir, localenv::Supervisor& supervisor,
             Record& record) {
  VT_ASSIGN_OR_RETURN(std::vector<localenv::SimulatedNode> nodes,
                      localenv::LoadNodeInventory(options.nodes_path));
  std::vector<std::string> crds;
  if (!options.cluster_only) {
    VT_ASSIGN_OR_RETURN(crds, YamlFiles(options.crds_dir));
  }
  std::cout << "vtenant: starting etcd, kube-apiserver, kube-controller-manager and kwok in " << dir
            << " ..." << std::endl;
  const localenv::RealNodeOptions node = RealNodeOptionsFor(options, dir);
  std::vector<std::string> api_server_args;
  std::vector<std::pair<std::string, std::string>> users;
  if (options.real_node) {
    VT_RETURN_IF_ERROR(EnsurePrivateDirectory(node.dir));
    VT_RETURN_IF_ERROR(localenv::WriteRealNodeApiServerFiles(node));
    api_server_args = localenv::RealNodeApiServerArgs(node);
    users = localenv::RealNodeUsers();
  }
  // A cluster as any has a default scheduler for the pods vtenant's does
  // not place (the chart's own, to begin with), acting as the identity
  // Kubernetes' bootstrap policy binds to its rights.
  if (options.cluster_only) users.emplace_back(kKubeSchedulerUser, "");
  VT_ASSIGN_OR_RETURN(
      std::unique_ptr<localenv::LocalCluster> cluster,
      localenv::LocalCluster::Start({.dir = dir,
                                     .nodes = nodes,
                                     .manifests = crds,
                                     .extra_users = users,
                                     .api_server_port = options.port,
                                     .api_server_args = api_server_args,
                                     // the chart's pods read their token
                                     .service_account_admission = options.cluster_only,
                                     .die_with_parent = false}));
  cluster->HandOver(supervisor);
  record.state().kubeconfig = cluster->api_server().kubeconfig_path();
  VT_RETURN_IF_ERROR(record.Save(supervisor));
  if (options.cluster_only) {
    VT_ASSIGN_OR_RETURN(std::string kube_scheduler, localenv::FindTool("kube-scheduler"));
    const localenv::Component default_scheduler{
        .name = "kube-scheduler",
        .process = {.argv = {kube_scheduler,
                             "--kubeconfig=" + dir + "/host/" + kKubeSchedulerUser + ".kubeconfig",
                             "--leader-elect=false", "--secure-port=0", "--v=1"},
                    .log_path = dir + "/host/kube-scheduler.log"}};
    VT_RETURN_IF_ERROR(supervisor.Start(default_scheduler).WithContext("starting kube-scheduler"));
    VT_RETURN_IF_ERROR(WaitHealthy(supervisor, default_scheduler));
    VT_RETURN_IF_ERROR(record.Save(supervisor));
    if (options.real_node) {
      VT_RETURN_IF_ERROR(
          StartRealNode(node, cluster->api_server().port(), cluster->client(), supervisor, record));
    }
    std::cout << "vtenant: the cluster alone (--cluster-only): install vtenant with helm install "
                 "vtenant charts/vtenant --kubeconfig "
              << record.state().kubeconfig << std::endl;
    return record.Save(supervisor);
  }
  std::cout << "vtenant: installed CRDs from";
  for (const std::string& file : crds) std::cout << " " << fs::path(file).filename().string();
  std::cout << std::endl;

  // The scheduler and the operator act as the chart's ServiceAccounts, with
  // exactly the rights it grants them on a real cluster.
  VT_RETURN_IF_ERROR(
      localenv::InstallChartAccounts(cluster->client(),
                                     {.chart_dir = options.chart_dir, .ns = kSystemNamespace})
          .WithContext("installing the chart's ServiceAccounts and RBAC"));
  auto account_kubeconfig = [&](const std::string& account) -> Result<std::string> {
    const std::string path = dir + "/accounts/" + account + ".kubeconfig";
    VT_RETURN_IF_ERROR(localenv::WriteServiceAccountKubeconfig(cluster->api_server(),
                                                               kSystemNamespace, account, path));
    return path;
  };
  if (options.real_node) {
    VT_RETURN_IF_ERROR(
        StartRealNode(node, cluster->api_server().port(), cluster->client(), supervisor, record));
  }
  VT_ASSIGN_OR_RETURN(std::string scheduler_kubeconfig, account_kubeconfig("vtenant-scheduler"));
  VT_ASSIGN_OR_RETURN(std::string operator_kubeconfig, account_kubeconfig("vtenant-operator"));

  const std::string tools_bin =
      fs::path(localenv::FindTool("kube-apiserver").value_or("")).parent_path().string();
  // The scheduler serves its admission webhook (GPU-sharing pods need it)
  // on loopback and fills in the chart's webhook configuration.
  VT_ASSIGN_OR_RETURN(int webhook_port, localenv::PickFreeLoopbackPort());
  std::vector<std::string> scheduler_args = {
      "--kubeconfig=" + scheduler_kubeconfig,
      "--webhook-address=127.0.0.1:" + std::to_string(webhook_port),
      std::string("--reservation-namespace=") + kSystemNamespace,
      "--reservation-service-account=vtenant-gpu-reservation"};
  scheduler_args.insert(scheduler_args.end(), options.scheduler_args.begin(),
                        options.scheduler_args.end());
  VT_RETURN_IF_ERROR(StartProgram(supervisor, "vtenant-scheduler", options.scheduler_binary,
                                  "scheduler", scheduler_args, dir)
                         .WithContext("starting vtenant-scheduler"));
  VT_RETURN_IF_ERROR(record.Save(supervisor));
  // Tenants' control planes keep their folders under <dir>/operator and
  // their data in an etcd the operator starts there, where each is an etcd
  // user confined to /vtenant/<t>/: never in the host's etcd, which holds
  // the host's Secrets and only the host's API server may reach.
  std::vector<std::string> operator_args = {
      "--kubeconfig=" + operator_kubeconfig,
      std::string("--credentials-namespace=") + kSystemNamespace, "--backend-default=process",
      "--state-dir=" + OperatorStateDir(dir), "--tools-bin=" + tools_bin};
  // Pods on the real node cannot reach the machine's loopback: each
  // tenant's syncer relays its API server into the node's namespace.
  if (options.real_node) {
    operator_args.insert(operator_args.end(), {"--pod-netns=" + localenv::NetnsName(dir),
                                               std::string("--pod-address=") + localenv::kNodeIp});
  }
  Result<std::string> syncer =
      FindVtenantProgram(options.syncer_binary, "syncer", "vtenant-syncer");
  if (syncer.ok()) {
    operator_args.push_back("--syncer-binary=" + *syncer);
  } else {
    std::cout << "vtenant: " << syncer.status().message()
              << "; tenants' pods will not reach the host" << std::endl;
  }
  VT_RETURN_IF_ERROR(StartProgram(supervisor, "vtenant-operator", options.operator_binary,
                                  "operator", operator_args, dir)
                         .WithContext("starting vtenant-operator"));
  return record.Save(supervisor);
}

// The environment recorded in `dir`, started again: each component that
// still runs is adopted, each that does not is started with its recorded
// command, in the recorded order, and waited for.
Status Resume(localenv::Supervisor& supervisor, Record& record, const std::string& dir) {
  std::vector<std::string> adopted, started;
  const std::vector<ComponentRecord> components = record.state().components;
  // After a reboot the real node's namespace and cgroup are gone; its
  // programs start in them.
  if (record.state().Find("kubelet") != nullptr) {
    VT_RETURN_IF_ERROR(localenv::EnsureRealNodeNamespace(dir));
  }
  for (const ComponentRecord& c : components) {
    if (g_stop) return Unavailable("stopped while resuming");
    if (localenv::ProcessRuns(c.pid, ProgramOf(c.component), "")) {
      supervisor.Add(c.component, localenv::Process::Adopt(c.pid, ProgramOf(c.component)));
      adopted.push_back(c.component.name);
      continue;
    }
    VT_RETURN_IF_ERROR(supervisor.Start(c.component).WithContext("starting " + c.component.name));
    VT_RETURN_IF_ERROR(WaitHealthy(supervisor, c.component));
    started.push_back(c.component.name);
    std::cout << "vtenant: started " << c.component.name << " again (pid "
              << supervisor.Statuses().back().pid << ")" << std::endl;
    VT_RETURN_IF_ERROR(record.Save(supervisor));
  }
  auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? std::string("none") : out;
  };
  std::cout << "vtenant: resumed with the same data: started again: " << join(started)
            << "; still running: " << join(adopted) << std::endl;
  return record.Save(supervisor);
}

// Says what happened to each component since the last call, for the log.
void ReportRestarts(const localenv::Supervisor& supervisor,
                    std::vector<localenv::ComponentStatus>& last) {
  const std::vector<localenv::ComponentStatus> now = supervisor.Statuses();
  for (size_t i = 0; i < now.size(); ++i) {
    const localenv::ComponentStatus* before = i < last.size() ? &last[i] : nullptr;
    if (before != nullptr && before->pid > 0 && now[i].pid != before->pid) {
      std::cout << "vtenant: " << now[i].name << " (pid " << before->pid << ") " << now[i].last_exit
                << std::endl;
    }
    if (now[i].pid > 0 && (before == nullptr || before->pid != now[i].pid)) {
      std::cout << "vtenant: " << now[i].name << " started again (pid " << now[i].pid
                << ", restart " << now[i].restarts << ")" << std::endl;
    }
  }
  last = now;
}

}  // namespace

int RunSupervise(const GlobalOptions& global, const std::vector<std::string>& args) {
  UpOptions options;
  if (int code = ParseUpOptions("supervise", args, options); code >= 0) return code;
  const std::string dir = StateDir(global);
  // Everything in the state folder is its owner's alone; every program
  // started from here inherits the umask.
  ::umask(077);
  signal(SIGTERM, RequestStop);
  signal(SIGINT, RequestStop);
  signal(SIGHUP, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);

  Result<EnvironmentState> existing = EnvironmentState::Load(dir);
  const bool resume = existing.ok() && !existing->components.empty();
  if (!existing.ok() && existing.status().code() != StatusCode::kNotFound) {
    std::cerr << "vtenant supervise: " << existing.status().ToString() << "\n";
    return 1;
  }
  Record record(dir, existing.ok() ? *existing : EnvironmentState{});
  record.state().supervisor_pid = getpid();
  record.state().phase = "starting";
  record.state().message.clear();
  localenv::Supervisor supervisor;
  if (Status saved = record.Save(supervisor); !saved.ok()) {
    std::cerr << "vtenant supervise: " << saved.ToString() << "\n";
    return 1;
  }
  Status built = resume ? Resume(supervisor, record, dir) : Build(options, dir, supervisor, record);
  if (!built.ok()) {
    std::cout << "vtenant: " << built.ToString() << std::endl;
    supervisor.StopAll(std::chrono::seconds(5));
    record.state().phase = "failed";
    record.state().message = built.ToString();
    (void)record.Save(supervisor);
    return 1;
  }
  record.state().phase = "ready";
  (void)record.Save(supervisor);
  std::cout << "vtenant: ready; supervising " << supervisor.Statuses().size() << " components (pid "
            << getpid() << ")" << std::endl;

  std::vector<localenv::ComponentStatus> last = supervisor.Statuses();
  while (!g_stop) {
    if (supervisor.Tick()) {
      ReportRestarts(supervisor, last);
      (void)record.Save(supervisor);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::cout << "vtenant: stopping (data kept in " << dir << ")" << std::endl;
  record.state().phase = "stopping";
  (void)record.Save(supervisor);
  // The operator goes first, so that it starts no tenant process while they
  // are being stopped. Then every process working in the folder, the
  // tenants' and the host's alike, in tiers: clients (syncers, controller
  // managers, the scheduler, kwok), then the API servers (which would wait
  // for their clients' watches), then the stores.
  auto say = [](const std::string& line) {
    if (!line.empty()) std::cout << "vtenant: stopped " << line << std::endl;
  };
  say(supervisor.StopOne("vtenant-operator", std::chrono::seconds(5)));
  // The real node: its agents, then its pods' processes, which would
  // outlive containerd's shims (containerd itself goes last, with them).
  if (supervisor.Find("kubelet") != nullptr) {
    say(supervisor.StopOne("kube-proxy", std::chrono::seconds(5)));
    say(supervisor.StopOne("kubelet", std::chrono::seconds(5)));
    if (int killed = localenv::KillRealNodeContainers(dir); killed > 0) {
      std::cout << "vtenant: stopped " << killed << " process(es) of the real node's pods"
                << std::endl;
    }
  }
  const auto begin = std::chrono::steady_clock::now();
  if (int stopped = localenv::StopEnvironmentProcesses(dir, std::chrono::seconds(5)); stopped > 0) {
    std::cout << "vtenant: stopped " << stopped
              << " process(es), the tenants' control planes and syncers and the host's, in "
              << std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - begin)
                     .count()
              << " ms" << std::endl;
  }
  // Reaps the host's components (stopped above) and stops anything left.
  supervisor.StopAll(std::chrono::seconds(5));
  record.state().phase = "stopped";
  (void)record.Save(supervisor);
  return 0;
}

}  // namespace vtenant::cli

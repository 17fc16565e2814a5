#include "operator/process_backend.h"

#include <glog/logging.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/file.h"
#include "base/rfc3339.h"
#include "base/secret_file.h"
#include "kube/http_transport.h"
#include "kube/kubeconfig.h"
#include "localenv/etcd_admin.h"
#include "localenv/etcd_server.h"
#include "localenv/health_probe.h"
#include "localenv/process.h"
#include "localenv/tools.h"
#include "localenv/wait.h"
#include "operator/state_layout.h"

namespace vtenant::op {
namespace fs = std::filesystem;
using localenv::FindRunning;
using localenv::ProcessRuns;

namespace {

// The components' names in the tenant's supervisor and their pid files.
constexpr char kApiServer[] = "kube-apiserver";
constexpr char kControllerManager[] = "kube-controller-manager";
constexpr char kSyncer[] = "vtenant-syncer";

// argv: the program, then its arguments.
std::vector<std::string> Command(std::string program, std::vector<std::string> args) {
  args.insert(args.begin(), std::move(program));
  return args;
}

// Everything under a tenant's folder is owner-only (base/secret_file.h):
// certificates, keys and kubeconfigs, and the pid and port files beside them.
Status WriteFileAtomically(const fs::path& path, const std::string& contents) {
  return WriteSecretFile(path, contents);
}

int ReadInt(const fs::path& path) {
  std::string text = ReadFileOrEmpty(path);
  try {
    return text.empty() ? -1 : std::stoi(text);
  } catch (...) {
    return -1;
  }
}

// Stops a process group we started or adopted, politely first; Stop reaps
// it when it was our child.
void StopPid(int pid, const std::string& program, const std::string& marker) {
  if (!ProcessRuns(pid, program, marker)) return;
  localenv::Process::Adopt(pid, program).Stop(std::chrono::seconds(5));
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

struct ProcessBackend::Tenant {
  std::string name;
  fs::path dir;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  std::optional<ControlPlaneRequest> desired;
  ControlPlaneStatus status;
  int port = 0;
  int controller_manager_port = 0;
  int syncer_port = 0;          // its /healthz /readyz /metrics
  int syncer_kubelet_port = 0;  // the virtual Nodes' kubelet endpoint
  // The tenant's processes, started or adopted; only the tenant's thread
  // touches it. Restarts what exits, with a backoff.
  localenv::Supervisor supervisor;
  std::map<std::string, int> recorded_pids;  // what the pid files say
  std::string written_pki;                   // certificate bundle last written to disk
  std::string syncer_credentials_warning;    // a failed token refresh, for the status
  // The API server's health probe: a process that runs is not one that
  // answers (stopped, wedged, its etcd gone).
  std::unique_ptr<kube::HttpTransport> probe;
  int probed_pid = -1;  // the API server the probe last asked
  Status last_probe;
  std::chrono::steady_clock::time_point next_probe;
  std::thread thread;

  std::string EtcdPrefix() const { return "/vtenant/" + name + "/"; }
  fs::path ApiServerDir() const { return dir / "apiserver"; }
  fs::path Pki() const { return ApiServerDir() / "pki"; }
  std::string Kubeconfig() const { return (ApiServerDir() / "admin.kubeconfig").string(); }
  int Pid(const std::string& component) const {
    for (const localenv::ComponentStatus& c : supervisor.Statuses()) {
      if (c.name == component) return c.pid;
    }
    return -1;
  }
};

ProcessBackend::ProcessBackend(ProcessBackendOptions options)
    : options_(std::move(options)), apiserver_starts_(options_.starting_apiservers) {
  // Best effort here; every file written below it says why it cannot be.
  (void)EnsurePrivateDirectory(TenantsFolder(options_.state_dir));
}

ProcessBackend::~ProcessBackend() {
  std::map<std::string, std::shared_ptr<Tenant>> tenants;
  {
    std::lock_guard lock(mu_);
    tenants.swap(tenants_);
  }
  for (auto& [name, t] : tenants) {
    {
      std::lock_guard lock(t->mu);
      t->stop = true;
    }
    t->cv.notify_all();
    if (t->thread.joinable()) t->thread.join();
    t->supervisor.ReleaseAll();
  }
}

void ProcessBackend::SetChangeNotifier(std::function<void(const std::string&)> notify) {
  std::lock_guard lock(mu_);
  notify_ = std::move(notify);
}

std::string ProcessBackend::TenantDir(const std::string& tenant) const {
  return (TenantsFolder(options_.state_dir) / tenant).string();
}

Result<ControlPlaneStatus> ProcessBackend::Ensure(const ControlPlaneRequest& request) {
  const std::string& name = request.spec.name;
  std::shared_ptr<Tenant> t;
  {
    std::lock_guard lock(mu_);
    std::shared_ptr<Tenant>& slot = tenants_[name];
    if (!slot) {
      slot = std::make_shared<Tenant>();
      slot->name = name;
      slot->dir = TenantDir(name);
      VT_RETURN_IF_ERROR(EnsurePrivateDirectory(slot->dir));
      // Ports outlive the processes: the kubeconfig Secret names the API
      // server's, and a virtual Node the syncer's kubelet endpoint.
      auto persisted_port = [&](const char* file, int* port) -> Status {
        *port = ReadInt(slot->dir / file);
        if (*port > 0) return Status::Ok();
        VT_ASSIGN_OR_RETURN(*port, localenv::PickFreeLoopbackPort());
        return WriteFileAtomically(slot->dir / file, std::to_string(*port));
      };
      VT_RETURN_IF_ERROR(persisted_port("port", &slot->port));
      VT_RETURN_IF_ERROR(persisted_port("controller-manager-port", &slot->controller_manager_port));
      VT_RETURN_IF_ERROR(persisted_port("syncer-port", &slot->syncer_port));
      VT_RETURN_IF_ERROR(persisted_port("syncer-kubelet-port", &slot->syncer_kubelet_port));
      slot->status.endpoint = "https://127.0.0.1:" + std::to_string(slot->port);
      slot->status.syncer_enabled = !options_.syncer_binary.empty();
      slot->status.control_plane = {false, "Starting", "starting kube-apiserver"};
      slot->status.syncer = {false, "Starting", "waiting for the control plane"};
      slot->desired = request;
      slot->thread = std::thread([this, s = slot] { Supervise(s); });
      return slot->status;
    }
    t = slot;
  }
  std::lock_guard lock(t->mu);
  t->desired = request;
  t->cv.notify_all();
  return t->status;
}

void ProcessBackend::Supervise(std::shared_ptr<Tenant> t) {
  while (true) {
    bool changed = SuperviseOnce(*t);
    if (changed) {
      std::function<void(const std::string&)> notify;
      {
        std::lock_guard lock(mu_);
        notify = notify_;
      }
      if (notify) notify(t->name);
    }
    std::unique_lock lock(t->mu);
    if (t->cv.wait_for(lock, options_.supervise_period, [&] { return t->stop; })) return;
  }
}

std::string ProcessBackend::Tool(const std::string& name) const {
  if (!options_.tools_bin.empty()) return (fs::path(options_.tools_bin) / name).string();
  Result<std::string> found = localenv::FindTool(name);
  return found.ok() ? *found : name;
}

localenv::EtcdClientTls ProcessBackend::EtcdRoot() {
  std::lock_guard lock(etcd_mu_);
  return etcd_root_;
}

Result<localenv::EtcdClientTls> ProcessBackend::EnsureEtcdIdentity(const Tenant& t,
                                                                   const fs::path& pki) {
  // An etcd given with --etcd-servers is the caller's: no credentials of ours.
  if (!options_.etcd_servers.empty()) return localenv::EtcdClientTls{};
  VT_ASSIGN_OR_RETURN(std::string url, EnsureEtcd());
  const std::string user = "vtenant-" + t.name;
  VT_ASSIGN_OR_RETURN(std::unique_ptr<localenv::EtcdAdmin> admin,
                      localenv::EtcdAdmin::Connect(url, EtcdRoot()));
  VT_RETURN_IF_ERROR(admin->EnsurePrefixUser(user, t.EtcdPrefix()));
  const localenv::EtcdClientTls mine{(pki / "etcd-ca.crt").string(),
                                     (pki / "etcd-client.crt").string(),
                                     (pki / "etcd-client.key").string()};
  if (fs::exists(mine.cert_file) && fs::exists(mine.key_file)) return mine;
  return localenv::EtcdServer::IssueClient((fs::path(options_.state_dir) / "etcd").string(), user,
                                           pki.string());
}

Result<std::string> ProcessBackend::EnsureEtcd() {
  if (!options_.etcd_servers.empty()) return options_.etcd_servers;
  std::lock_guard lock(etcd_mu_);
  const fs::path dir = fs::path(options_.state_dir) / "etcd";
  etcd_root_ = localenv::EtcdServer::RootTls(dir.string());
  if (ProcessRuns(etcd_pid_, "etcd", dir.string())) return etcd_url_;
  int pid = ReadInt(dir / "etcd.pid");
  std::string url = ReadFileOrEmpty(dir / "url");
  if (!ProcessRuns(pid, "etcd", dir.string())) pid = FindRunning("etcd", dir.string());
  if (!url.empty() && pid > 0) {
    LOG(INFO) << "adopted etcd (pid " << pid << ") at " << url;
    etcd_pid_ = pid;
    etcd_url_ = url;
    return url;
  }
  // TLS with client certificates only, compacted by etcd itself: the tenants'
  // API servers may not touch the key they would coordinate compaction on.
  // Two minutes of history, as the local host keeps (localenv/local_cluster.cc):
  // the watch caches' consistency checks list at their cache's revision,
  // which etcd's progress notifications (every 30 s, etcd_server.cc) keep
  // well inside it; with one minute and notifications every ten, the
  // tenants' API servers logged failed checks. With five, etcd's memory
  // grew through a churn's first ten minutes before it levelled.
  VT_ASSIGN_OR_RETURN(
      std::unique_ptr<localenv::EtcdServer> etcd,
      localenv::EtcdServer::Start(
          {.dir = dir.string(),
           .die_with_parent = false,
           .extra_args = {"--auto-compaction-mode=periodic", "--auto-compaction-retention=2m"}}));
  etcd_url_ = etcd->client_url();
  etcd_pid_ = etcd->Release();
  // Authentication on before any tenant's API server starts: each reaches
  // its own prefix and nothing else (EnsureEtcdIdentity).
  VT_ASSIGN_OR_RETURN(std::unique_ptr<localenv::EtcdAdmin> admin,
                      localenv::EtcdAdmin::Connect(etcd_url_, etcd->client_tls()));
  VT_RETURN_IF_ERROR(admin->EnableAuth().WithContext("enabling etcd authentication"));
  VT_RETURN_IF_ERROR(WriteFileAtomically(dir / "url", etcd_url_));
  VT_RETURN_IF_ERROR(WriteFileAtomically(dir / "etcd.pid", std::to_string(etcd_pid_)));
  LOG(INFO) << "started etcd (pid " << etcd_pid_ << ") at " << etcd_url_;
  return etcd_url_;
}

bool ProcessBackend::SuperviseOnce(Tenant& t) {
  ControlPlaneRequest desired;
  ControlPlaneStatus before;
  {
    std::lock_guard lock(t.mu);
    desired = *t.desired;
    before = t.status;
  }
  ControlPlaneStatus now = before;
  auto report = [&](bool cp_ready, std::string reason, std::string message) {
    now.control_plane = {cp_ready, std::move(reason), std::move(message)};
    if (!cp_ready) now.syncer = {false, "ControlPlaneNotReady", "waiting for the control plane"};
    std::lock_guard lock(t.mu);
    t.status = now;
    return now.control_plane.message != before.control_plane.message ||
           now.control_plane.ready != before.control_plane.ready ||
           now.syncer.ready != before.syncer.ready || now.syncer.message != before.syncer.message;
  };

  // Certificates: the API server reloads its serving certificate and client
  // CA from these files when they change, so a renewal needs no restart.
  const fs::path pki = t.Pki();
  // The team's CA is in the client CA bundle: a rotation rewrites it, and
  // the API server refuses the old team credential once it reloads it. The
  // tenant's CA key is not written: no process here signs anything.
  const TenantCertificates& c = desired.certificates;
  const std::string bundle = c.ca.certificate_pem + c.apiserver.certificate_pem +
                             c.admin.certificate_pem + c.service_account.public_key_pem +
                             c.kubelet_client.certificate_pem + c.syncer_kubelet.certificate_pem +
                             ClientCaBundle(c);
  if (bundle != t.written_pki) {
    std::error_code gone;
    fs::remove(pki / "ca.key", gone);  // written by older operators
    // Beside the API server's files, the control plane's admin pair: only
    // this backend keeps it on disk.
    std::vector<std::pair<std::string, std::string>> files = ControlPlanePkiFiles(c);
    files.emplace_back("admin.crt", c.admin.certificate_pem);
    files.emplace_back("admin.key", c.admin.private_key_pem);
    for (const auto& [file, text] : files) {
      if (Status s = WriteFileAtomically(pki / file, text); !s.ok()) {
        return report(false, "StateDirUnwritable", s.message());
      }
    }
    // The controller manager's and the health probe's identity: the
    // control plane's admin.
    if (Status s =
            WriteFileAtomically(t.Kubeconfig(), kube::RenderKubeconfig(AdminConfig(t, c), t.name));
        !s.ok()) {
      return report(false, "StateDirUnwritable", s.message());
    }
    t.probe.reset();
    t.written_pki = bundle;
  }

  Result<std::string> etcd = EnsureEtcd();
  if (!etcd.ok()) return report(false, "EtcdUnavailable", etcd.status().message());

  // Exits noticed; what exited started again once its backoff has passed.
  t.supervisor.Tick();
  RecordPids(t);

  ControlPlanePlacement placement = Placement(t);
  placement.etcd_servers = *etcd;
  const ControlPlaneArgs args = RenderControlPlaneArgs(desired, placement);

  // The components carry no health probe for the supervisor: one that runs
  // but does not answer is reported (Unreachable, SyncerStarting) and left
  // running, not killed; ProbeApiServer and SyncerReadiness ask them.

  // kube-apiserver: supervised, adopted, or started. Its certificate paths
  // name this tenant's folder: unique per operator state dir, unlike the
  // etcd prefix.
  localenv::Component apiserver{
      .name = kApiServer,
      .process = {.argv = Command(Tool("kube-apiserver"), args.apiserver),
                  .log_path = (t.ApiServerDir() / "kube-apiserver.log").string(),
                  .env = options_.apiserver_env}};
  std::string failure = "ApiServerFailed";
  Status running = EnsureComponent(
      t, apiserver, "kube-apiserver", (pki / "apiserver.crt").string(), true,
      [&](const localenv::Component& component) -> Result<localenv::Process> {
        // In turns with the other tenants' API servers (start_gate.h).
        const auto queued = std::chrono::steady_clock::now();
        if (options_.starting_apiservers > 0) {
          std::lock_guard lock(t.mu);
          t.status.control_plane = {false, "Starting",
                                    "waiting to start kube-apiserver: at most " +
                                        std::to_string(options_.starting_apiservers) +
                                        " start at once"};
        }
        StartGate::Slot slot = apiserver_starts_.Acquire([&] {
          std::lock_guard lock(t.mu);
          return t.stop;
        });
        if (!slot.held()) {
          failure = "Stopping";
          return Unavailable("the tenant's supervisor is stopping");
        }
        LOG(INFO) << "tenant " << t.name << ": starting kube-apiserver on port " << t.port
                  << " after waiting " << SecondsSince(queued) << " s for a start slot";
        // Its own etcd user, which reaches /vtenant/<t>/ only.
        Result<localenv::EtcdClientTls> etcd_tls = EnsureEtcdIdentity(t, pki);
        if (!etcd_tls.ok()) {
          failure = "EtcdUnavailable";
          return etcd_tls.status().WithContext("the API server's etcd credential");
        }
        const auto started = std::chrono::steady_clock::now();
        VT_ASSIGN_OR_RETURN(localenv::Process process, localenv::Process::Start(component.process));
        // Stopping a server that is slow only because twenty others start
        // beside it throws its work away and starts the same work again.
        Status ready =
            localenv::WaitForHttpOk(AdminConfig(t, c), "/readyz", std::chrono::minutes(10),
                                    &process, component.process.log_path);
        if (!ready.ok()) {
          process.Stop();
          return ready;
        }
        LOG(INFO) << "tenant " << t.name << ": kube-apiserver (pid " << process.pid()
                  << ") ready after " << SecondsSince(started) << " s";
        return process;
      });
  if (!running.ok()) {
    return report(false, failure, "kube-apiserver did not start: " + running.message());
  }
  if (std::string exited = Exited(t, kApiServer); !exited.empty()) {
    return report(false, "ApiServerFailed", exited);
  }

  if (Status health = ProbeApiServer(t); !health.ok()) {
    return report(false, "Unreachable",
                  "kube-apiserver (pid " + std::to_string(t.Pid(kApiServer)) +
                      ") runs but does not answer " + now.endpoint +
                      "/readyz: " + health.ToString());
  }

  // The syncer needs only the API server: it starts beside the controller
  // manager instead of after it, so the two start-ups overlap.
  const bool syncer_checked = EnsureSyncer(t, desired, placement, now.syncer);

  const fs::path kcm_dir = t.dir / "controller-manager";
  const std::string kcm_url = "https://127.0.0.1:" + std::to_string(t.controller_manager_port);
  localenv::Component kcm{
      .name = kControllerManager,
      .process = {.argv = Command(Tool("kube-controller-manager"), args.controller_manager),
                  .log_path = (kcm_dir / "kube-controller-manager.log").string(),
                  .env = options_.controller_manager_env}};
  running = EnsureComponent(
      t, kcm, "kube-controller-manager", "--kubeconfig=" + t.Kubeconfig(), true,
      [&](const localenv::Component& component) -> Result<localenv::Process> {
        VT_RETURN_IF_ERROR(EnsurePrivateDirectory(kcm_dir));
        const auto started = std::chrono::steady_clock::now();
        VT_ASSIGN_OR_RETURN(localenv::Process process, localenv::Process::Start(component.process));
        kube::RestConfig probe;
        probe.server = kcm_url;
        probe.insecure_skip_tls_verify = true;  // its self-signed serving certificate; loopback
        Status ready = localenv::WaitForHttpOk(probe, "/healthz", std::chrono::minutes(5), &process,
                                               component.process.log_path);
        if (!ready.ok()) {
          process.Stop();
          // Perhaps its port was taken meanwhile: the next start tries another.
          Result<int> port = localenv::PickFreeLoopbackPort();
          if (port.ok() &&
              WriteFileAtomically(t.dir / "controller-manager-port", std::to_string(*port)).ok()) {
            t.controller_manager_port = *port;
          }
          return ready;
        }
        LOG(INFO) << "tenant " << t.name << ": kube-controller-manager (pid " << process.pid()
                  << ") ready after " << SecondsSince(started) << " s";
        return process;
      });
  if (!running.ok()) {
    return report(false, "ControllerManagerFailed",
                  "kube-controller-manager did not start: " + running.message());
  }
  if (std::string exited = Exited(t, kControllerManager); !exited.empty()) {
    return report(false, "ControllerManagerFailed", exited);
  }
  int restarts = 0;
  for (const localenv::ComponentStatus& component : t.supervisor.Statuses()) {
    if (component.name != kSyncer) restarts += component.restarts;
  }
  std::string message = "kube-apiserver (pid " + std::to_string(t.Pid(kApiServer)) +
                        ") and kube-controller-manager (pid " +
                        std::to_string(t.Pid(kControllerManager)) + ") run on " + now.endpoint +
                        ", etcd prefix " + t.EtcdPrefix();
  if (restarts > 0) message += "; restarted " + std::to_string(restarts) + " times";
  now.control_plane = {true, "Running", message};

  if (syncer_checked) now.syncer = SyncerReadiness(t);
  std::lock_guard lock(t.mu);
  t.status = now;
  return now.control_plane.message != before.control_plane.message ||
         now.control_plane.ready != before.control_plane.ready ||
         now.syncer.ready != before.syncer.ready || now.syncer.message != before.syncer.message;
}

ControlPlanePlacement ProcessBackend::Placement(const Tenant& t) const {
  const fs::path pki = t.Pki();
  ControlPlanePlacement p{
      .etcd_prefix = t.EtcdPrefix(),
      .bind_address = "127.0.0.1",
      .apiserver_port = t.port,
      .pki_dir = pki.string(),
      .service_cidr = options_.service_cidr,
      .apiserver_cert_dir = (t.ApiServerDir() / "generated-certs").string(),
      .kubeconfig = t.Kubeconfig(),
      .controller_manager_port = t.controller_manager_port,
      .controller_manager_cert_dir = (t.dir / "controller-manager" / "generated-certs").string(),
      .syncer_virtual_kubeconfig = (t.dir / "syncer" / "virtual.kubeconfig").string(),
      .virtual_service_host = "127.0.0.1",
      .virtual_service_port = t.port,
      .syncer_health_address = "127.0.0.1:" + std::to_string(t.syncer_port),
      .syncer_kubelet_address = "127.0.0.1:" + std::to_string(t.syncer_kubelet_port)};
  // Pods on a node in a namespace of its own: the syncer relays the API
  // server there, on the same port (syncer/pod_endpoints.h).
  if (!options_.pod_netns.empty()) {
    const std::string host = options_.pod_address.find(':') == std::string::npos
                                 ? options_.pod_address
                                 : "[" + options_.pod_address + "]";
    p.virtual_service_host = options_.pod_address;
    p.syncer_pod_netns = options_.pod_netns;
    p.syncer_pod_api_address = host + ":" + std::to_string(t.port);
    // The same port over UDP: the virtual cluster's DNS.
    p.syncer_pod_dns_address = p.syncer_pod_api_address;
  }
  // The etcd this backend runs: each API server an etcd user of its own
  // (EnsureEtcdIdentity), and etcd compacts itself, since no tenant's API
  // server may write the key compaction is coordinated on. One named with
  // --etcd-servers is used without credentials of ours.
  if (options_.etcd_servers.empty()) {
    p.etcd_ca_file = (pki / "etcd-ca.crt").string();
    p.etcd_cert_file = (pki / "etcd-client.crt").string();
    p.etcd_key_file = (pki / "etcd-client.key").string();
    p.etcd_compacts_itself = true;
  }
  return p;
}

kube::RestConfig ProcessBackend::AdminConfig(const Tenant& t, const TenantCertificates& c) const {
  kube::RestConfig config;
  config.server = "https://127.0.0.1:" + std::to_string(t.port);
  config.ca_pem = c.ca.certificate_pem;
  config.client_certificate_pem = c.admin.certificate_pem;
  config.client_key_pem = c.admin.private_key_pem;
  return config;
}

Status ProcessBackend::EnsureComponent(
    Tenant& t, const localenv::Component& component, const std::string& program,
    const std::string& marker, bool adoptable,
    const std::function<Result<localenv::Process>(const localenv::Component&)>& start) {
  if (const localenv::Component* had = t.supervisor.Find(component.name); had != nullptr) {
    if (had->process.argv == component.process.argv && had->process.env == component.process.env) {
      return Status::Ok();
    }
    LOG(INFO) << "tenant " << t.name << ": restarting " << component.name
              << " with a new command line";
    t.supervisor.Remove(component.name, std::chrono::seconds(5));
  } else {
    const int pid = FindRunning(program, marker, ReadInt(t.dir / (component.name + ".pid")));
    if (pid > 0 && adoptable) {
      LOG(INFO) << "tenant " << t.name << ": adopted " << component.name << " pid " << pid;
      t.supervisor.Add(component, localenv::Process::Adopt(pid, program));
      RecordPids(t);
      return Status::Ok();
    }
    if (pid > 0) {
      LOG(INFO) << "tenant " << t.name << ": restarting " << component.name << " (pid " << pid
                << ") with a new command line";
      StopPid(pid, program, marker);
    }
  }
  VT_ASSIGN_OR_RETURN(localenv::Process process, start(component));
  t.supervisor.Add(component, std::move(process));
  RecordPids(t);
  return Status::Ok();
}

std::string ProcessBackend::Exited(const Tenant& t, const std::string& component) {
  for (const localenv::ComponentStatus& c : t.supervisor.Statuses()) {
    if (c.name != component || c.pid > 0) continue;
    return component + " exited (" + c.last_exit + ") and is started again after a backoff; " +
           "restarted " + std::to_string(c.restarts) + " times";
  }
  return "";
}

void ProcessBackend::RecordPids(Tenant& t) {
  for (const localenv::ComponentStatus& c : t.supervisor.Statuses()) {
    if (c.pid <= 0 || t.recorded_pids[c.name] == c.pid) continue;
    if (WriteFileAtomically(t.dir / (c.name + ".pid"), std::to_string(c.pid)).ok()) {
      t.recorded_pids[c.name] = c.pid;
    }
  }
}

Status ProcessBackend::ProbeApiServer(Tenant& t) {
  const auto now = std::chrono::steady_clock::now();
  // Another API server process than the one last asked (started again):
  // a new connection, asked at once.
  if (const int pid = t.Pid(kApiServer); pid != t.probed_pid) {
    t.probe.reset();
    t.last_probe = Unavailable("not asked yet");
    t.probed_pid = pid;
  }
  // Healthy servers are probed every health_period; one that failed is
  // probed every round, so its recovery shows as soon as it happens.
  if (t.last_probe.ok() && now < t.next_probe) return Status::Ok();
  if (t.probe == nullptr) {
    Result<kube::RestConfig> config = kube::LoadKubeconfig(t.Kubeconfig());
    if (!config.ok()) return config.status().WithContext("the admin kubeconfig");
    config->timeout = options_.probe_timeout;
    config->qps = 0;
    Result<std::unique_ptr<kube::HttpTransport>> transport = kube::NewHttpTransport(*config);
    if (!transport.ok()) return transport.status();
    t.probe = std::move(transport).value();
  }
  Result<kube::HttpResponse> answer = t.probe->Send("GET", "/readyz");
  if (!answer.ok()) {
    t.last_probe = answer.status();
  } else if (answer->status_code != 200) {
    t.last_probe = Unavailable("HTTP " + std::to_string(answer->status_code) + ": " +
                               answer->body.substr(0, 300));
  } else {
    t.last_probe = Status::Ok();
  }
  t.next_probe = now + options_.health_period;
  return t.last_probe;
}

bool ProcessBackend::EnsureSyncer(Tenant& t, const ControlPlaneRequest& desired,
                                  const ControlPlanePlacement& placement, ComponentStatus& status) {
  if (options_.syncer_binary.empty()) {
    status = {false, "SyncerNotConfigured",
              "the operator runs without --syncer-binary: pods of the virtual cluster are "
              "not synced to the host"};
    return false;
  }
  if (access(options_.syncer_binary.c_str(), X_OK) != 0) {
    status = {false, "SyncerBinaryMissing",
              "no executable vtenant-syncer at " + options_.syncer_binary +
                  " (--syncer-binary); build it with `cmake --build build --target "
                  "vtenant-syncer`"};
    return false;
  }
  // The syncer's host identity: its own ServiceAccount's token, refreshed
  // in place while it runs (see host_credentials.h).
  if (options_.syncer_tokens == nullptr) {
    status = {false, "SyncerCredentialsFailed",
              "the process backend has no token issuer for the syncer's ServiceAccount"};
    return false;
  }
  Result<HostCredentials> credentials =
      EnsureHostCredentials(*options_.syncer_tokens,
                            {.dir = (t.dir / "syncer").string(),
                             .ns = desired.host_namespace,
                             .service_account = options_.syncer_service_account,
                             .server = options_.host_server,
                             .ca_pem = options_.host_ca_pem,
                             .lifetime = options_.syncer_token_lifetime},
                            options_.now());
  if (!credentials.ok()) {
    status = {false, "SyncerCredentialsFailed", credentials.status().ToString()};
    return false;
  }
  if (credentials->refreshed) {
    LOG(INFO) << "tenant " << t.name << ": issued the syncer a token of ServiceAccount "
              << desired.host_namespace << "/" << options_.syncer_service_account << " valid until "
              << FormatRfc3339(credentials->expires);
  }
  t.syncer_credentials_warning =
      credentials->refresh_error.empty()
          ? ""
          : "; refreshing its host token failed (" + credentials->refresh_error +
                "), the current one expires at " + FormatRfc3339(credentials->expires);

  // Its identity in the virtual cluster: a token of its own ServiceAccount
  // there, which the operator renews; kube/ re-reads the file per request.
  if (desired.syncer_virtual_token.empty()) {
    status = {false, "WaitingForCredentials",
              "waiting for the operator to issue the syncer's token in the virtual cluster"};
    return false;
  }
  const fs::path virtual_token = t.dir / "syncer" / "virtual-token";
  const fs::path virtual_kubeconfig = t.dir / "syncer" / "virtual.kubeconfig";
  const std::string kubeconfig = RenderTokenFileKubeconfig(
      "https://127.0.0.1:" + std::to_string(t.port), desired.certificates.ca.certificate_pem,
      virtual_token.string(), "vc-" + t.name);
  for (const auto& [path, text] :
       {std::pair{virtual_token, desired.syncer_virtual_token}, {virtual_kubeconfig, kubeconfig}}) {
    if (ReadFileOrEmpty(path) == text) continue;
    if (Status s = WriteFileAtomically(path, text); !s.ok()) {
      status = {false, "SyncerCredentialsFailed", s.ToString()};
      return false;
    }
  }
  ControlPlanePlacement mine = placement;
  mine.syncer_host_kubeconfig = credentials->kubeconfig_path;
  localenv::Component syncer{
      .name = kSyncer,
      .process = {
          .argv = Command(options_.syncer_binary, RenderControlPlaneArgs(desired, mine).syncer),
          .log_path = (t.dir / "vtenant-syncer.log").string()}};
  // The command line the running syncer was started with, so that a change
  // of what the Tenant allows (or of the host's priority classes) restarts
  // it, after an operator restart too; a syncer without the record
  // predates it and restarts once.
  std::string args;
  for (const std::string& a : syncer.process.argv) args += a + "\n";
  const fs::path args_file = t.dir / "vtenant-syncer.args";
  Status running = EnsureComponent(
      t, syncer, fs::path(options_.syncer_binary).filename(),
      "--virtual-kubeconfig=" + virtual_kubeconfig.string(), ReadFileOrEmpty(args_file) == args,
      [&](const localenv::Component& component) -> Result<localenv::Process> {
        VT_ASSIGN_OR_RETURN(localenv::Process process, localenv::Process::Start(component.process));
        (void)WriteFileAtomically(args_file, args);
        return process;
      });
  if (!running.ok()) {
    status = {false, "SyncerFailed", running.message()};
    return false;
  }
  return true;
}

ComponentStatus ProcessBackend::SyncerReadiness(const Tenant& t) {
  const std::string url = "http://127.0.0.1:" + std::to_string(t.syncer_port);
  const std::string pid = std::to_string(t.Pid(kSyncer));
  if (localenv::CheckHealth({.url = url + "/readyz"}, std::chrono::seconds(1)).ok()) {
    return {true, "Running",
            "vtenant-syncer (pid " + pid + ") is ready" + t.syncer_credentials_warning};
  }
  return {false, "SyncerStarting",
          "vtenant-syncer (pid " + pid + ") is not ready yet; log " +
              (t.dir / "vtenant-syncer.log").string() + t.syncer_credentials_warning};
}

void ProcessBackend::StopSupervising(const std::string& tenant) {
  std::shared_ptr<Tenant> t;
  {
    std::lock_guard lock(mu_);
    auto it = tenants_.find(tenant);
    if (it == tenants_.end()) return;
    t = it->second;
    tenants_.erase(it);
  }
  {
    std::lock_guard lock(t->mu);
    t->stop = true;
  }
  t->cv.notify_all();
  if (t->thread.joinable()) t->thread.join();
}

Result<bool> ProcessBackend::Remove(const std::string& tenant, const std::string& host_namespace) {
  StopSupervising(tenant);
  const fs::path dir = TenantDir(tenant);
  if (!fs::exists(dir)) return true;
  // Pid files, not memory: after a restart this operator may never have
  // supervised the tenant it removes.
  const std::string syncer = fs::path(options_.syncer_binary).filename();
  // The pid file first, then /proc, for a process whose file was never written.
  // Every process of the tenant names a file in its folder.
  const std::string marker = dir.string() + "/";
  for (const std::string& program :
       {syncer.empty() ? std::string("vtenant-syncer") : syncer,
        std::string("kube-controller-manager"), std::string("kube-apiserver")}) {
    StopPid(ReadInt(dir / (program + ".pid")), program, marker);
    for (int pid; (pid = FindRunning(program, marker)) > 0;) StopPid(pid, program, marker);
  }
  Result<std::string> etcd = EnsureEtcd();
  if (!etcd.ok()) return etcd.status().WithContext("removing tenant " + tenant + "'s etcd keys");
  // An etcd given by address asks for no credentials and has no users.
  const bool own_etcd = options_.etcd_servers.empty();
  VT_ASSIGN_OR_RETURN(
      std::unique_ptr<localenv::EtcdAdmin> admin,
      localenv::EtcdAdmin::Connect(*etcd, own_etcd ? EtcdRoot() : localenv::EtcdClientTls{}));
  VT_RETURN_IF_ERROR(admin->DeletePrefix("/vtenant/" + tenant + "/"));
  if (own_etcd) VT_RETURN_IF_ERROR(admin->DeleteUser("vtenant-" + tenant));
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) return Internal("removing " + dir.string() + ": " + ec.message());
  LOG(INFO) << "tenant " << tenant << ": control plane removed";
  return true;
}

}  // namespace vtenant::op

// ProcessBackend: virtual control planes as supervised local processes, for
// the local environment and tests.
//
// Per tenant: a kube-apiserver on a loopback port kept under
// <state-dir>/tenants/<t> (state_layout.h; the port is chosen once and kept, so the
// kubeconfig Secret stays valid), storing its data in one etcd shared by
// every tenant under the prefix /vtenant/<t> (each an etcd user of its own,
// confined to it); a kube-controller-manager with the controllers a
// cluster without nodes of its own needs; and vtenant-syncer when its
// binary is configured. Their command lines come from control_plane_args.h,
// as the StatefulSet backend's do. A thread per tenant starts what is
// missing and reports changes; the tenant's localenv::Supervisor (the
// local environment's, localenv/supervisor.h) restarts what exits, with a
// backoff while it keeps failing.
//
// Processes are not children for life: each has a pid file, and after an
// operator restart the backend re-adopts a process whose pid file names a
// live process running that program with that tenant's arguments (or, when
// the operator died before writing the file, the process /proc shows with
// them), instead of starting a second one. Remove stops the processes,
// deletes the tenant's etcd keys, its etcd user (when the etcd is ours) and
// its state folder; it does all of that before it returns, and never
// answers false.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/rest_config.h"
#include "kube/wall_time.h"
#include "localenv/etcd_server.h"
#include "localenv/process.h"
#include "localenv/supervisor.h"
#include "operator/control_plane_args.h"
#include "operator/control_plane_backend.h"
#include "operator/host_credentials.h"
#include "operator/start_gate.h"

namespace vtenant::op {

struct ProcessBackendOptions {
  std::string state_dir;  // per-tenant folders and the shared etcd's data
  std::string tools_bin;  // kube-apiserver, kube-controller-manager, etcd; "" = localenv's search
  std::string syncer_binary;  // "" = no syncer
  // The shared etcd. Empty: the backend starts one under <state_dir>/etcd
  // (and re-adopts it after a restart), serving TLS to client certificates
  // only, with authentication on: each tenant's API server is an etcd user
  // of its own that reaches its own prefix and nothing else. An etcd named
  // here is used as it is, without credentials of ours.
  std::string etcd_servers;
  // The host cluster as the syncer reaches it, and who issues the syncer
  // its credentials there: tokens of the tenant's `syncer_service_account`
  // (a Role over the tenant's namespace, nodes read-only), never the
  // operator's own. Without an issuer no syncer starts.
  std::string host_server;
  std::string host_ca_pem;  // empty: the system roots
  TokenIssuer* syncer_tokens = nullptr;
  std::string syncer_service_account = "vtenant-syncer";
  std::chrono::seconds syncer_token_lifetime = std::chrono::hours(1);
  kube::WallClock now = kube::SystemNow;
  std::chrono::milliseconds supervise_period{500};
  // How often a running kube-apiserver's /readyz is asked, and how long it
  // has to answer; one that does not is reported Unreachable (not
  // restarted: it runs, and may only be slow).
  std::chrono::milliseconds health_period{5000};
  std::chrono::milliseconds probe_timeout{5000};
  // kube-apiservers starting at once (see start_gate.h); 0 = no limit.
  // Re-adopting a running one takes no slot.
  int starting_apiservers = 5;
  // The virtual API servers' Service range: the host's (see
  // OperatorFlags::service_cidr).
  std::string service_cidr = "10.96.0.0/16";
  // The node the tenants' pods run on is in this network namespace (the
  // local environment's real node), at `pod_address`: each syncer relays
  // its virtual API server at pod_address:<the tenant's port> inside it,
  // and the pods get that as KUBERNETES_SERVICE_HOST/PORT. Empty: pods are
  // given 127.0.0.1 (the machine's network).
  std::string pod_netns;
  std::string pod_address;
  // The environment of the virtual control planes' servers (see
  // bench/history/operator_bench.md); their command lines come from
  // control_plane_args.h.
  std::map<std::string, std::string> apiserver_env = {{"GOGC", "100"}};
  std::map<std::string, std::string> controller_manager_env = {{"GOGC", "50"}};
};

class ProcessBackend final : public ControlPlaneBackend {
 public:
  explicit ProcessBackend(ProcessBackendOptions options);
  // Stops the supervisors and leaves the processes running, so the next
  // operator adopts them (an operator restart must not restart every
  // tenant's control plane). Remove is what stops them.
  ~ProcessBackend() override;

  // The first call for a tenant makes its folder, picks and records its
  // ports (API server, controller manager, syncer, syncer's kubelet) and
  // starts its supervising thread; every call hands over `request` and
  // returns the status that thread last reported. Errors only when the
  // folder or a port file cannot be made.
  Result<ControlPlaneStatus> Ensure(const ControlPlaneRequest& request) override;
  Result<bool> Remove(const std::string& tenant, const std::string& host_namespace) override;
  void SetChangeNotifier(std::function<void(const std::string& tenant)> notify) override;

 private:
  // Forgets `tenant` and joins its supervisor thread, so nothing restarts
  // its processes while they are being stopped. No-op when not supervised.
  void StopSupervising(const std::string& tenant);
  struct Tenant;

  void Supervise(std::shared_ptr<Tenant> tenant);
  // One supervision round; returns whether the reported status changed.
  bool SuperviseOnce(Tenant& tenant);
  // Where the tenant's components run: its ports, its folder's files, the
  // etcd credentials (etcd_servers aside, filled in by the caller).
  ControlPlanePlacement Placement(const Tenant& tenant) const;
  // The control plane's admin identity (the controller manager's, the
  // health probe's) at the tenant's API server.
  kube::RestConfig AdminConfig(const Tenant& tenant, const TenantCertificates& certificates) const;
  // Makes `component` run under the tenant's supervisor. Supervised with
  // the same command line: nothing to do; with another: stopped and started
  // anew. Not supervised: adopted when a process of `program` with an
  // argument containing `marker` runs (its pid file first, then /proc) and
  // `adoptable` says its command line is the one wanted, else stopped; and
  // otherwise `start` starts it and returns it once it answers. The error
  // is start's.
  Status EnsureComponent(
      Tenant& tenant, const localenv::Component& component, const std::string& program,
      const std::string& marker, bool adoptable,
      const std::function<Result<localenv::Process>(const localenv::Component&)>& start);
  // Why `component` does not run while its supervisor waits to start it
  // again; empty when it runs.
  static std::string Exited(const Tenant& tenant, const std::string& component);
  // Writes the pid file of each supervised process whose pid changed.
  void RecordPids(Tenant& tenant);
  // Makes sure the syncer runs with fresh host credentials; false (and
  // `status` says why) when it cannot run.
  bool EnsureSyncer(Tenant& tenant, const ControlPlaneRequest& desired,
                    const ControlPlanePlacement& placement, ComponentStatus& status);
  // Whether the running kube-apiserver answers /readyz (at most every
  // health_period while it does).
  Status ProbeApiServer(Tenant& tenant);
  // Whether a running syncer answers /readyz.
  ComponentStatus SyncerReadiness(const Tenant& tenant);
  Result<std::string> EnsureEtcd();
  // The tenant's etcd user (vtenant-<t>, whose role reaches /vtenant/<t>/
  // only) and its client certificate in the API server's `pki` folder.
  // Empty with --etcd-servers, whose etcd is not ours to manage.
  Result<localenv::EtcdClientTls> EnsureEtcdIdentity(const Tenant& t,
                                                     const std::filesystem::path& pki);
  localenv::EtcdClientTls EtcdRoot();  // set by EnsureEtcd
  std::string Tool(const std::string& name) const;
  std::string TenantDir(const std::string& tenant) const;

  const ProcessBackendOptions options_;
  StartGate apiserver_starts_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Tenant>> tenants_;
  std::function<void(const std::string&)> notify_;
  std::mutex etcd_mu_;
  std::string etcd_url_;
  localenv::EtcdClientTls etcd_root_;  // the etcd's root user, which manages the tenants' users
  int etcd_pid_ = -1;
};

}  // namespace vtenant::op

// vtenant-operator: reconciles Tenants (see tenant_reconciler.h).
//
// A thin main: flags, the host client, informers feeding one controller,
// leader election, the health server and graceful shutdown on SIGTERM. The
// work is in vtenant_operator.
#include <glog/logging.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <thread>

#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "kube/health_server.h"
#include "kube/informer.h"
#include "kube/kubeconfig.h"
#include "kube/leader_election.h"
#include "kube/rest_client.h"
#include "operator/flags.h"
#include "operator/host_objects.h"
#include "operator/process_backend.h"
#include "operator/statefulset_backend.h"
#include "operator/tenant_reconciler.h"

namespace fs = std::filesystem;
using namespace vtenant;

namespace {

std::atomic<int> exit_code{0};

// The tenant a host object belongs to, by its label.
std::vector<std::string> TenantOf(const kube::Object& o) {
  auto t = kube::Label(o, op::kTenantLabel);
  if (!t.has_value() || t->empty()) return {};
  return {std::string(*t)};
}

Status SplitHostPort(const std::string& address, std::string* host, uint16_t* port) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return InvalidArgument("\"" + address + "\" is not host:port");
  *host = address.substr(0, colon);
  try {
    int p = std::stoi(address.substr(colon + 1));
    if (p < 1 || p > 65535) throw std::out_of_range("port");
    *port = static_cast<uint16_t>(p);
  } catch (...) {
    return InvalidArgument("\"" + address + "\" has no valid port");
  }
  return Status::Ok();
}

int Run(const op::OperatorFlags& flags) {
  if (!flags.tools_bin.empty()) setenv("VTENANT_TOOLS_BIN", flags.tools_bin.c_str(), 1);
  std::string syncer = flags.syncer_binary;
  if (syncer.empty()) {
    syncer = (fs::canonical("/proc/self/exe").parent_path() / ".." / "syncer" / "vtenant-syncer")
                 .lexically_normal()
                 .string();
  }
  if (flags.no_syncer) syncer.clear();

  Result<kube::RestConfig> config = kube::LoadDefaultConfig(flags.kubeconfig);
  if (!config.ok()) {
    LOG(ERROR) << "host cluster: " << config.status().ToString();
    return 1;
  }
  config->user_agent = "vtenant-operator";
  Result<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(*config);
  if (!client.ok()) {
    LOG(ERROR) << "host cluster: " << client.status().ToString();
    return 1;
  }
  kube::Client& host = **client;
  std::string host_kubeconfig = flags.kubeconfig;
  if (host_kubeconfig.empty() && getenv("KUBECONFIG") != nullptr)
    host_kubeconfig = getenv("KUBECONFIG");
  if (!host_kubeconfig.empty()) host_kubeconfig = fs::absolute(host_kubeconfig).string();

  kube::EventRecorder events(host, "vtenant-operator");
  op::ProcessBackend process({.state_dir = fs::absolute(flags.state_dir).string(),
                              .tools_bin = flags.tools_bin,
                              .syncer_binary = syncer,
                              .etcd_servers = flags.etcd_servers,
                              .host_kubeconfig = host_kubeconfig});
  op::StatefulSetBackend statefulset(host, {.syncer_image = flags.syncer_image});
  op::RestVirtualClusterConnector connector;
  op::TenantReconciler reconciler(
      host, {{op::Backend::kProcess, &process}, {op::Backend::kStatefulSet, &statefulset}},
      connector, events, {.default_backend = flags.backend_default});
  kube::Controller controller({.name = "tenant", .workers = flags.workers}, reconciler);

  kube::SharedInformer tenants(host, kube::resources::kTenants,
                               {.resync_period = std::chrono::minutes(1)});
  kube::SharedInformer queues(host, kube::resources::kQueues);
  const std::string owned = std::string(op::kTenantLabel);
  kube::SharedInformer namespaces(host, kube::resources::kNamespaces, {.label_selector = owned});
  kube::SharedInformer secrets(host, kube::resources::kSecrets, {.label_selector = owned});
  kube::SharedInformer statefulsets(host, op::resources::kStatefulSets, {.label_selector = owned});
  controller.Watch(tenants);
  // A queue matters to its own tenant and to every tenant it is the parent
  // of (ParentQueueMissing, QuotaOvercommitted).
  controller.Watch(queues, [&tenants](const kube::Object& q) {
    std::vector<std::string> keys = TenantOf(q);
    for (const kube::ObjectPtr& t : tenants.cache().List()) {
      if (kube::GetString(*t, {"spec", "queue", "parentQueue"}) == kube::Name(q)) {
        keys.push_back(kube::KeyOf(*t));
      }
    }
    return keys;
  });
  controller.Watch(namespaces, TenantOf);
  controller.Watch(secrets, TenantOf);
  controller.Watch(statefulsets, TenantOf);
  process.SetChangeNotifier([&controller](const std::string& t) { controller.Enqueue(t); });

  std::vector<kube::SharedInformer*> informers = {&tenants, &queues, &namespaces, &secrets,
                                                  &statefulsets};
  std::atomic<bool> leading{false};
  std::thread controller_thread;
  auto start_work = [&] {
    for (kube::SharedInformer* i : informers) (void)i->Run();
    controller_thread = std::thread([&] { controller.Run(); });
    leading = true;
    LOG(INFO) << "reconciling Tenants with " << flags.workers << " workers";
  };

  kube::HealthServer health;
  health.AddHealthCheck("ping", [] { return Status::Ok(); });
  health.AddReadyCheck("informers-synced", [&] {
    for (kube::SharedInformer* i : informers) {
      if (leading && !i->HasSynced()) return Unavailable(i->type().resource + " not synced");
    }
    return Status::Ok();
  });
  if (!flags.health_address.empty()) {
    std::string h;
    uint16_t port = 0;
    if (Status s = SplitHostPort(flags.health_address, &h, &port); !s.ok()) {
      LOG(ERROR) << "--health-address: " << s.message();
      return 2;
    }
    if (Status s = health.Start(h, port); !s.ok()) {
      LOG(ERROR) << "health server: " << s.ToString();
      return 1;
    }
  }

  std::unique_ptr<kube::LeaderElector> elector;
  if (flags.leader_elect) {
    char hostname[256] = {};
    gethostname(hostname, sizeof(hostname) - 1);
    Result<std::unique_ptr<kube::LeaderElector>> e = kube::LeaderElector::Create(
        host, {.lease_namespace = flags.leader_election_namespace,
               .lease_name = flags.leader_election_id,
               .identity = std::string(hostname) + "_" + std::to_string(getpid()),
               .callbacks = {.on_started_leading = start_work, .on_stopped_leading = [] {
                               // The controller cannot be restarted in
                               // place; exit and let the next replica lead.
                               LOG(ERROR) << "lost the leader lease; shutting down";
                               exit_code = 1;
                               kill(getpid(), SIGTERM);
                             }}});
    if (!e.ok()) {
      LOG(ERROR) << "leader election: " << e.status().ToString();
      return 2;
    }
    elector = std::move(e).value();
    health.AddHealthCheck("leader-election", [] { return Status::Ok(); });
    (void)elector->Run();
    LOG(INFO) << "waiting to lead " << flags.leader_election_namespace << "/"
              << flags.leader_election_id;
  } else {
    start_work();
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  int received = 0;
  sigwait(&signals, &received);
  LOG(INFO) << "signal " << received << ": shutting down";

  controller.Stop();
  if (controller_thread.joinable()) controller_thread.join();
  for (kube::SharedInformer* i : informers) i->Stop();
  if (elector) elector->Stop();  // hands the lease over at once
  health.Stop();
  // The process backend's control planes keep running: the next operator
  // adopts them. Deleting a Tenant is what stops them.
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  Result<op::OperatorFlags> flags =
      op::ParseOperatorFlags(std::vector<std::string>(argv + 1, argv + argc));
  if (!flags.ok()) {
    std::cerr << "vtenant-operator: " << flags.status().message() << "\n\n" << op::OperatorUsage();
    return 2;
  }
  if (flags->help) {
    std::cout << op::OperatorUsage();
    return 0;
  }
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  // Every thread inherits this mask, so only sigwait in Run sees SIGTERM.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return Run(*flags);
}

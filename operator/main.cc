// vtenant-operator: reconciles Tenants (see tenant_reconciler.h).
//
// A thin main: flags, the host client, and a kube::Manager that owns the
// informers, the tenant controller, leader election, /healthz /readyz
// /metrics and the graceful shutdown on SIGTERM. The work is in
// vtenant_operator.
#include <glog/logging.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "kube/kubeconfig.h"
#include "kube/manager.h"
#include "kube/rest_client.h"
#include "operator/flags.h"
#include "operator/host_objects.h"
#include "operator/operator_identity.h"
#include "operator/process_backend.h"
#include "operator/statefulset_backend.h"
#include "operator/tenant_reconciler.h"

namespace fs = std::filesystem;
using namespace vtenant;

namespace {

// The tenant a host object belongs to, by its label.
std::vector<std::string> TenantOf(const kube::Object& o) {
  auto t = kube::Label(o, op::kTenantLabel);
  if (!t.has_value() || t->empty()) return {};
  return {std::string(*t)};
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
  kube::ManagerOptions options{.name = "vtenant-operator", .health_address = flags.health_address};
  if (flags.leader_elect) {
    options.leader_election = kube::LeaderElectionConfig{
        .lease_namespace = flags.leader_election_namespace, .lease_name = flags.leader_election_id};
  }
  Result<std::unique_ptr<kube::Manager>> manager = kube::Manager::Create(host, options);
  if (!manager.ok()) {
    LOG(ERROR) << manager.status().ToString();
    return 2;
  }
  kube::Manager& m = **manager;

  // The operator acts in each tenant's namespace through a RoleBinding to
  // itself, so it must know who it is.
  Result<std::string> username = op::WhoAmI(host);
  if (!username.ok()) {
    LOG(ERROR) << "host cluster: who am I: " << username.status().ToString();
    return 1;
  }
  std::string credentials_namespace = flags.credentials_namespace;
  if (credentials_namespace.empty() && getenv("POD_NAMESPACE") != nullptr) {
    credentials_namespace = getenv("POD_NAMESPACE");
  }
  if (credentials_namespace.empty()) credentials_namespace = "vtenant-system";
  LOG(INFO) << "acting as " << *username << "; tenants' certificates in namespace "
            << credentials_namespace;

  kube::EventRecorder events(host, "vtenant-operator");
  // Each tenant's syncer acts on the host as its own ServiceAccount.
  op::TokenRequestIssuer syncer_tokens(host);
  op::ProcessBackend process({.state_dir = fs::absolute(flags.state_dir).string(),
                              .tools_bin = flags.tools_bin,
                              .syncer_binary = syncer,
                              .etcd_servers = flags.etcd_servers,
                              .host_server = config->server,
                              .host_ca_pem = config->ca_pem,
                              .syncer_tokens = &syncer_tokens,
                              .starting_apiservers = flags.starting_apiservers,
                              .service_cidr = flags.service_cidr});
  op::StatefulSetBackend statefulset(
      host, {.syncer_image = flags.syncer_image, .service_cidr = flags.service_cidr});
  op::RestVirtualClusterConnector connector;
  op::TenantReconciler reconciler(
      host, {{op::Backend::kProcess, &process}, {op::Backend::kStatefulSet, &statefulset}},
      connector, events,
      {.default_backend = flags.backend_default,
       .scheduler_name = flags.scheduler_name,
       .self = op::SubjectOfUser(*username),
       .credentials_namespace = credentials_namespace,
       .tenant_credential_lifetime = flags.tenant_credential_lifetime,
       .operator_namespace = flags.leader_election_namespace,
       .reserved_namespaces = flags.reserved_namespaces});
  kube::Controller& controller =
      m.AddController({.name = "tenant", .workers = flags.workers}, reconciler);

  kube::InformerFactory& informers = m.cluster().informers();
  const std::string owned = std::string(op::kTenantLabel);
  kube::SharedInformer& tenants =
      informers.Get(kube::resources::kTenants, {.resync_period = std::chrono::minutes(1)});
  controller.Watch(tenants);
  // A queue matters to its own tenant, to the tenant of its name (one
  // refused while the name was taken), and to every tenant it is the parent
  // of (ParentQueueMissing, QuotaOvercommitted).
  controller.Watch(informers.Get(kube::resources::kQueues), [&tenants](const kube::Object& q) {
    std::vector<std::string> keys = TenantOf(q);
    if (tenants.cache().Get(std::string(kube::Name(q))) != nullptr) {
      keys.push_back(std::string(kube::Name(q)));
    }
    for (const kube::ObjectPtr& t : tenants.cache().List()) {
      if (kube::GetString(*t, {"spec", "queue", "parentQueue"}) == kube::Name(q)) {
        keys.push_back(kube::KeyOf(*t));
      }
    }
    return keys;
  });
  controller.Watch(informers.Get(kube::resources::kNamespaces, {.label_selector = owned}),
                   TenantOf);
  controller.Watch(informers.Get(op::resources::kStatefulSets, {.label_selector = owned}),
                   TenantOf);
  // Which priority classes a tenant's pods may name depends on the host's.
  controller.Watch(informers.Get(kube::resources::kPriorityClasses),
                   [&tenants](const kube::Object&) {
                     std::vector<std::string> keys;
                     for (const kube::ObjectPtr& t : tenants.cache().List()) {
                       keys.push_back(kube::KeyOf(*t));
                     }
                     return keys;
                   });
  process.SetChangeNotifier([&controller](const std::string& t) { controller.Enqueue(t); });

  // The process backend's control planes keep running after Run returns:
  // the next operator adopts them. Deleting a Tenant is what stops them.
  Status run = m.Run();
  if (!run.ok()) {
    LOG(ERROR) << "vtenant-operator: " << run.ToString();
    return 1;
  }
  return 0;
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
  signal(SIGPIPE, SIG_IGN);
  // The state folder holds tenants' keys and data, and the control planes
  // started from here write more of both: owner-only, whatever the caller's
  // umask was.
  umask(077);
  return Run(*flags);
}

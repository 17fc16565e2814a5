#include "operator/operator_app.h"

#include <glog/logging.h>

#include <cstdlib>
#include <filesystem>

#include "kube/controller.h"
#include "kube/heap_trimmer.h"
#include "operator/host_objects.h"
#include "operator/operator_identity.h"
#include "operator/tenant.h"
#include "operator/tenant_watches.h"

namespace vtenant::op {
namespace fs = std::filesystem;
namespace {

// Tenants' reconciles come in bursts (twenty Tenants applied at once, a
// certificate rotation); without these the operator's resident memory
// keeps the peak of every burst (see kube/heap_trimmer.h).
constexpr int kMallocArenas = 4;
constexpr auto kTrimPeriod = std::chrono::seconds(10);

// The syncer to start for the process backend: the flag, else the one built
// beside this program; none with --no-syncer.
std::string SyncerBinary(const OperatorFlags& flags) {
  if (flags.no_syncer) return "";
  if (!flags.syncer_binary.empty()) return flags.syncer_binary;
  return (fs::canonical("/proc/self/exe").parent_path() / ".." / "syncer" / "vtenant-syncer")
      .lexically_normal()
      .string();
}

// Where the tenants' certificate Secrets live: the flag, else the
// operator's own namespace, else vtenant-system.
std::string CredentialsNamespace(const OperatorFlags& flags) {
  if (!flags.credentials_namespace.empty()) return flags.credentials_namespace;
  if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr && *ns != '\0') return ns;
  return "vtenant-system";
}

}  // namespace

Result<std::unique_ptr<OperatorApp>> OperatorApp::Create(kube::Client& host,
                                                         const kube::RestConfig& host_config,
                                                         OperatorFlags flags) {
  kube::LimitMallocArenas(kMallocArenas);
  std::unique_ptr<OperatorApp> app(new OperatorApp(host, std::move(flags)));
  kube::ManagerOptions options{.name = "vtenant-operator",
                               .health_address = app->flags_.health_address};
  if (app->flags_.leader_elect) {
    options.leader_election =
        kube::LeaderElectionConfig{.lease_namespace = app->flags_.leader_election_namespace,
                                   .lease_name = app->flags_.leader_election_id};
  }
  VT_ASSIGN_OR_RETURN(app->manager_, kube::Manager::Create(host, options));
  kube::AddHeapTrimmer(*app->manager_, kTrimPeriod);
  Result<std::string> username = WhoAmI(host);
  if (!username.ok()) return username.status().WithContext("host cluster: who am I");
  VT_RETURN_IF_ERROR(app->Wire(host_config, *username));
  return app;
}

OperatorApp::OperatorApp(kube::Client& host, OperatorFlags flags)
    : host_(host),
      flags_(std::move(flags)),
      events_(host, "vtenant-operator"),
      syncer_tokens_(host) {}

Status OperatorApp::Wire(const kube::RestConfig& host_config, const std::string& username) {
  if (!flags_.tools_bin.empty()) setenv("VTENANT_TOOLS_BIN", flags_.tools_bin.c_str(), 1);
  const std::string credentials_namespace = CredentialsNamespace(flags_);
  LOG(INFO) << "acting as " << username << "; tenants' certificates in namespace "
            << credentials_namespace;
  process_ = std::make_unique<ProcessBackend>(
      ProcessBackendOptions{.state_dir = fs::absolute(flags_.state_dir).string(),
                            .tools_bin = flags_.tools_bin,
                            .syncer_binary = SyncerBinary(flags_),
                            .etcd_servers = flags_.etcd_servers,
                            .host_server = host_config.server,
                            .host_ca_pem = host_config.ca_pem,
                            .syncer_tokens = &syncer_tokens_,
                            .starting_apiservers = flags_.starting_apiservers,
                            .service_cidr = flags_.service_cidr,
                            .pod_netns = flags_.pod_netns,
                            .pod_address = flags_.pod_address});
  statefulset_ = std::make_unique<StatefulSetBackend>(
      host_, StatefulSetBackendOptions{.image_registry = flags_.image_registry,
                                       .etcd_image = flags_.etcd_image,
                                       .syncer_image = flags_.syncer_image,
                                       .service_cidr = flags_.service_cidr});
  reconciler_ = std::make_unique<TenantReconciler>(
      host_,
      std::map<Backend, ControlPlaneBackend*>{{Backend::kProcess, process_.get()},
                                              {Backend::kStatefulSet, statefulset_.get()}},
      connector_, events_,
      TenantReconcilerOptions{
          .default_backend = flags_.backend_default,
          .scheduler_name = flags_.scheduler_name,
          .self = SubjectOfUser(username),
          .credentials_namespace = credentials_namespace,
          .tenant_credential_lifetime = flags_.tenant_credential_lifetime,
          .operator_namespace = flags_.leader_election_namespace,
          .reserved_namespaces = flags_.reserved_namespaces,
          .apiserver_ip_addresses = flags_.pod_address.empty()
                                        ? std::vector<std::string>{}
                                        : std::vector<std::string>{flags_.pod_address}});
  kube::Controller& controller =
      manager_->AddController({.name = "tenant", .workers = flags_.workers}, *reconciler_);

  kube::InformerFactory& informers = manager_->cluster().informers();
  // Only what the operator made: its objects carry the tenant label.
  const std::string owned = kTenantLabel;
  kube::SharedInformer& tenants =
      informers.Get(kube::resources::kTenants, {.resync_period = std::chrono::minutes(1)});
  controller.Watch(tenants);
  controller.Watch(informers.Get(kube::resources::kQueues), [&tenants](const kube::Object& q) {
    return TenantsOfQueue(q, tenants.cache().List());
  });
  controller.Watch(informers.Get(kube::resources::kNamespaces, {.label_selector = owned}),
                   TenantOfLabel);
  controller.Watch(informers.Get(kube::resources::kStatefulSets, {.label_selector = owned}),
                   TenantOfLabel);
  controller.Watch(informers.Get(kube::resources::kPriorityClasses),
                   [&tenants](const kube::Object&) { return AllTenants(tenants.cache().List()); });
  // A tenant's process that exited, or one that came up.
  process_->SetChangeNotifier([&controller](const std::string& t) { controller.Enqueue(t); });
  return Status::Ok();
}

Status OperatorApp::Run() { return manager_->Run(); }

}  // namespace vtenant::op

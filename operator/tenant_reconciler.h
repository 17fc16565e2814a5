// TenantReconciler: one Tenant → everything its team needs, level-triggered.
//
// Each Reconcile(name) reads the Tenant and the world and moves the world one
// pass towards the spec, in this order: finalizer; spec validation; host
// namespace and the operator's own RoleBinding in it (all it may do there
// comes through that binding); certificates (kept in the operator's own
// namespace; the team's replaced when the Tenant asks for a rotation with
// annotation vtenant.io/rotate-credentials); the syncer's ServiceAccount and
// role bindings; the admins' read access to the kubeconfig; the two
// NetworkPolicies (removed when the spec turns them off); the control
// plane (via its backend); the kubeconfig
// Secret; in the virtual cluster KAI's PodGroup CRD, the team's
// cluster-admin binding and the syncer's ServiceAccount and token; the KAI
// Queue under its parent. Every object is compared with
// what it should be and written only when it differs, so a pass over a
// healthy tenant is reads only, and a queue or Secret deleted by hand comes
// back on the next pass. Then status tells the truth: phase, conditions
// (ControlPlaneReady, QueueReady, SyncerReady, Ready, ParentQueueMissing,
// QuotaOvercommitted) with reasons and messages, observedGeneration,
// endpoint, kubeconfig Secret, queue and GPU allocated. Events mark every
// step that changed something and every problem.
//
// A Tenant cannot take what is not the operator's: one whose host namespace
// is reserved (CheckNamespaceNotReserved: the cluster's, vtenant's own) is
// refused (Ready=False ReservedName), and so is one whose namespace or
// queue exists without the labels the operator puts on what it makes for
// that Tenant (NamespaceTaken, QueueTaken): phase Failed, a Warning Event,
// nothing built or adopted, looked at again until the name is free. The
// same labels are checked before every write of a namespace, queue or
// cluster-scoped object that may already exist, and before every delete of
// such an object (DeleteIfOwned); the legacy objects an older operator left
// in the tenant's own namespace are removed by name.
//
// Deletion (the finalizer): the control plane and syncer go first (so the
// syncer recreates nothing), then the queue, the cluster-scoped binding, the
// certificate Secret and the namespace with all it holds (Secrets, synced
// pods, RBAC), each only when it is the operator's for this Tenant; the
// finalizer is removed once the namespace is gone (or was never the
// operator's). An invalid spec is not retried until it changes; a refused
// name or a tenant not Ready yet is looked at again after
// not_ready_requeue, a Ready one after ready_requeue; a step that fails is
// returned, for the controller's retry with backoff.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kube/client.h"
#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "kube/metrics.h"
#include "kube/wall_time.h"
#include "operator/control_plane_backend.h"
#include "operator/operator_identity.h"
#include "operator/tenant.h"
#include "operator/virtual_cluster_connector.h"

namespace vtenant::op {

struct TenantReconcilerOptions {
  Backend default_backend = Backend::kProcess;
  // How soon to look again at a tenant that is not Ready yet. A safety
  // net: backends and informers re-queue a tenant as soon as something
  // changes, so this only bounds how long a missed change goes unseen.
  // Every pass costs a dozen host reads; with twenty tenants starting at
  // once a 3 s net cost more CPU than it saved time.
  std::chrono::milliseconds not_ready_requeue{10000};
  // How often a Ready tenant is revisited (certificate renewal, drift the
  // informers cannot see, such as a CRD deleted inside the virtual cluster).
  std::chrono::milliseconds ready_requeue = std::chrono::minutes(5);
  // The host's vtenant scheduler, which the syncers give every host pod.
  std::string scheduler_name = "kai-scheduler";
  kube::WallClock now = kube::SystemNow;
  kube::Registry* registry = &kube::DefaultRegistry();
  // Who the operator is on the host (WhoAmI): the subject of the RoleBinding
  // through which it acts in each tenant's namespace.
  RbacSubject self{.kind = "User", .name = "vtenant-operator"};
  // Where the tenants' certificate Secrets (vc-<t>-certs, with their CA
  // keys) live: the operator's own namespace.
  std::string credentials_namespace = "vtenant-system";
  // How long a team's credential (the kubeconfig Secret's) is valid; it is
  // renewed once half of it is gone, and revoked at once by a rotation.
  std::chrono::seconds tenant_credential_lifetime = std::chrono::hours(24);
  // How long the syncer's token in the virtual cluster is valid; renewed at
  // half its life.
  std::chrono::seconds syncer_token_lifetime = std::chrono::hours(1);
  // The operator's own namespace: no Tenant may take it, and the
  // control-plane NetworkPolicy admits the operator's pods from it to the
  // virtual API server.
  std::string operator_namespace = "vtenant-system";
  // Further namespaces no Tenant may take (the scheduler's reservation
  // namespace as deployed); kReservedNamespaces always are.
  std::vector<std::string> reserved_namespaces;
  // Addresses every virtual API server's certificate names besides
  // DefaultCertificatePolicy's: where the tenants' pods reach it (the
  // process backend's --pod-address).
  std::vector<std::string> apiserver_ip_addresses;
};

class TenantReconciler final : public kube::Reconciler {
 public:
  // Every argument must outlive the reconciler. `backends` holds one backend
  // per kind the operator serves; a Tenant asking for another gets a
  // condition saying so.
  TenantReconciler(kube::Client& host, std::map<Backend, ControlPlaneBackend*> backends,
                   VirtualClusterConnector& connector, kube::EventRecorder& events,
                   TenantReconcilerOptions options = {});

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

 private:
  struct Pass;  // what one reconcile learned, for the status

  Result<kube::ReconcileResult> Finalize(const kube::Object& tenant);
  Status EnsureHostObjects(const kube::Object& tenant, const TenantSpec& spec, Pass& pass);
  Status EnsureOperatorBinding(const kube::Object& tenant, const TenantSpec& spec);
  Result<TenantCertificates> EnsureCertificates(const kube::Object& tenant, const TenantSpec& spec);
  // Installs what the virtual cluster needs (KAI's PodGroup CRD, the team's
  // cluster-admin binding, the syncer's ServiceAccount) and keeps the
  // syncer's token there fresh; true when it issued a new token.
  bool EnsureVirtualCluster(const kube::Object& tenant, const TenantSpec& spec,
                            const TenantCertificates& certs, Pass& pass);
  std::string SyncerToken(const std::string& tenant);
  Status EnsureQueue(const kube::Object& tenant, const TenantSpec& spec, Pass& pass);
  Status WriteStatus(const kube::Object& tenant, const Pass& pass);
  void RecordPhase(const std::string& tenant, const std::string& phase);

  kube::Client& host_;
  const std::map<Backend, ControlPlaneBackend*> backends_;
  VirtualClusterConnector& connector_;
  kube::EventRecorder& events_;
  const TenantReconcilerOptions options_;
  kube::Family<kube::Gauge>* tenants_by_phase_ = nullptr;
  kube::Family<kube::Counter>* step_errors_ = nullptr;

  std::mutex mu_;
  std::map<std::string, std::string> phases_;  // tenant → phase last written
  struct IssuedToken {
    std::string token;
    std::chrono::system_clock::time_point issued, expires;
  };
  std::map<std::string, IssuedToken> syncer_tokens_;  // tenant → its syncer's virtual token
};

}  // namespace vtenant::op

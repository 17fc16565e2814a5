// TenantReconciler: one Tenant → everything its team needs, level-triggered.
//
// Each Reconcile(name) reads the Tenant and the world and moves the world one
// pass towards the spec, in this order: finalizer; spec validation; host
// namespace; certificates; the syncer's ServiceAccount and Roles; the admins'
// read access to the kubeconfig; the NetworkPolicy; the control plane (via
// its backend); the kubeconfig Secret; KAI's PodGroup CRD in the virtual
// cluster; the KAI Queue under its parent. Every object is compared with
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
// cluster-scoped object that may already exist, and before every delete.
//
// Deletion (the finalizer): the control plane and syncer go first (so the
// syncer recreates nothing), then the queue, the cluster-scoped binding and
// the namespace with all it holds (Secrets, synced pods, RBAC), each only
// when it is the operator's for this Tenant; the finalizer is removed once
// the namespace is gone (or was never the operator's).
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
  kube::WallClock now = kube::SystemNow;
  kube::Registry* registry = &kube::DefaultRegistry();
  // The operator's own namespace: no Tenant may take it, and the
  // control-plane NetworkPolicy admits the operator's pods from it to the
  // virtual API server.
  std::string operator_namespace = "vtenant-system";
  // Further namespaces no Tenant may take (the scheduler's reservation
  // namespace as deployed); kReservedNamespaces always are.
  std::vector<std::string> reserved_namespaces;
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
  Result<TenantCertificates> EnsureCertificates(const kube::Object& tenant, const TenantSpec& spec);
  void EnsureVirtualCluster(const kube::Object& tenant, const TenantSpec& spec,
                            const TenantCertificates& certs, Pass& pass);
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
};

}  // namespace vtenant::op

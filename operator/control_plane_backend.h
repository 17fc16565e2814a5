// ControlPlaneBackend: where a tenant's virtual control plane runs.
//
// The reconciler decides what a tenant needs; a backend makes its
// kube-apiserver, kube-controller-manager and vtenant-syncer exist and says
// how they are doing. Two implementations: ProcessBackend (local supervised
// processes) and StatefulSetBackend (a StatefulSet in the host namespace).
// Both are level-triggered like the reconciler: Ensure is called on every
// pass with the whole desired state and must be cheap when nothing changed.
// Both take the components' command lines from control_plane_args.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "operator/certificates.h"
#include "operator/tenant.h"

namespace vtenant::op {

struct ControlPlaneRequest {
  TenantSpec spec;
  std::string host_namespace;
  TenantCertificates certificates;
  // The syncer's credential in the virtual cluster: a short-lived token of
  // ServiceAccount kube-system/vtenant-syncer there, which the operator
  // renews at half its life. Empty until the virtual API server first
  // answered; the syncer waits for it.
  std::string syncer_virtual_token;
  // The host's priority classes the tenant's pods may name
  // (AllowedPriorityClasses over the host's PriorityClasses), sorted.
  std::vector<std::string> allowed_priority_classes;
  // The host's vtenant scheduler, every host pod's schedulerName.
  std::string scheduler_name = "kai-scheduler";
};

// One part of the control plane: ready or, if not, why.
struct ComponentStatus {
  bool ready = false;
  std::string reason;   // CamelCase, for the condition
  std::string message;  // what a person should know, last error included
};

struct ControlPlaneStatus {
  ComponentStatus control_plane;  // kube-apiserver + kube-controller-manager
  ComponentStatus syncer;
  // Whether the syncer is configured at all; when not, Ready does not wait
  // for it (and SyncerReady says so).
  bool syncer_enabled = true;
  // How the operator (and the kubeconfig Secret's users) reach the virtual
  // API server: "https://127.0.0.1:34567", "https://vc-nlp.vtenant-nlp.svc:443".
  std::string endpoint;
};

class ControlPlaneBackend {
 public:
  virtual ~ControlPlaneBackend() = default;

  // Moves the tenant's control plane towards `request` and reports where it
  // stands. Must not block on slow work (starting servers): that happens in
  // the background and a later call reports the result. Errors are for
  // failures of the call itself (the host API server refused a write).
  virtual Result<ControlPlaneStatus> Ensure(const ControlPlaneRequest& request) = 0;

  // Removes the tenant's control plane and everything the backend keeps for
  // it. Returns true once nothing is left, false while removal is under way
  // (call again later).
  virtual Result<bool> Remove(const std::string& tenant, const std::string& host_namespace) = 0;

  // Tells `notify(tenant)` when a tenant's status changes on its own (a
  // process died or became ready), so the reconciler looks again at once.
  virtual void SetChangeNotifier(std::function<void(const std::string& tenant)> notify) = 0;
};

}  // namespace vtenant::op

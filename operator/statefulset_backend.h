// StatefulSetBackend: a tenant's virtual control plane as one StatefulSet
// pod in its host namespace, for real clusters.
//
// The pod runs etcd (data on a PersistentVolumeClaim of the spec's storage
// size), kube-apiserver, kube-controller-manager and vtenant-syncer; the
// Service vc-<t> in front of it is the endpoint the kubeconfig Secret names.
// The pod's certificates come from the Secret vc-<t>-control-plane: the CA
// certificate and client CA bundle, the serving certificate, the
// token-signing keys and the kubelet endpoint's pair of certificates, never
// a CA's key, which stays with the operator (vc-<t>-certs in its own
// namespace). The in-pod
// components reach the API server on localhost with a kubeconfig Secret of
// their own (vc-<t>-internal), all but the syncer, which acts there as its
// own ServiceAccount with a token the operator renews (vc-<t>-syncer). On
// the host the syncer runs as the ServiceAccount vtenant-syncer, whose
// rights are limited to the namespace and a read of nodes, and that token
// is mounted into the syncer's container only.
#pragma once

#include <functional>
#include <string>

#include "kube/client.h"
#include "operator/control_plane_backend.h"

namespace vtenant::op {

struct StatefulSetBackendOptions {
  std::string image_registry = "registry.k8s.io";
  std::string default_kubernetes_version = "v1.37.2";
  std::string etcd_image = "registry.k8s.io/etcd:3.6.5-0";
  std::string syncer_image = "ghcr.io/vtenant/vtenant-syncer:latest";
  // The virtual API server's Service range: the host's, so a virtual
  // Service can take its host copy's cluster IP (OperatorFlags::service_cidr).
  std::string service_cidr = "10.96.0.0/16";
};

// The objects the backend writes, rendered from the request. Pure, for
// unit tests and for a server-side dry run.
kube::Object RenderControlPlaneService(const ControlPlaneRequest& request);
std::string ControlPlaneSecretName(std::string_view tenant);  // vc-<t>-control-plane
kube::Object RenderControlPlaneSecret(const ControlPlaneRequest& request);
// vc-<t>-syncer: the syncer's kubeconfig of the virtual cluster and its token.
std::string SyncerSecretName(std::string_view tenant);
kube::Object RenderSyncerSecret(const ControlPlaneRequest& request);
kube::Object RenderInternalKubeconfigSecret(const ControlPlaneRequest& request);
kube::Object RenderControlPlaneStatefulSet(const ControlPlaneRequest& request,
                                           const StatefulSetBackendOptions& options);
std::string StatefulSetEndpoint(const ControlPlaneRequest& request);  // https://vc-<t>.<ns>.svc:443

class StatefulSetBackend final : public ControlPlaneBackend {
 public:
  // `host` must outlive the backend.
  StatefulSetBackend(kube::Client& host, StatefulSetBackendOptions options = {});

  Result<ControlPlaneStatus> Ensure(const ControlPlaneRequest& request) override;
  // Deletes the StatefulSet, the Service and the three Secrets, each only
  // when the operator made it for `tenant`; done once the StatefulSet is
  // gone (or was never ours). The etcd volume's claim is not the
  // StatefulSet's: it goes with the namespace.
  Result<bool> Remove(const std::string& tenant, const std::string& host_namespace) override;
  // The StatefulSet's status reaches the reconciler through its informer.
  void SetChangeNotifier(std::function<void(const std::string& tenant)>) override {}

 private:
  kube::Client& host_;
  const StatefulSetBackendOptions options_;
};

}  // namespace vtenant::op

#include "operator/control_plane_args.h"

namespace vtenant::op {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

// control_plane_args_test.cc spells these flags out again as its own
// expectation, so that any change to the command line shows up there.
std::vector<std::string> ApiServerArgs(const ControlPlanePlacement& p) {
  const std::string& pki = p.pki_dir;
  std::vector<std::string> args = {"--etcd-servers=" + p.etcd_servers};
  if (!p.etcd_prefix.empty()) args.push_back("--etcd-prefix=" + p.etcd_prefix);
  if (!p.etcd_cert_file.empty()) {
    args.insert(args.end(),
                {"--etcd-cafile=" + p.etcd_ca_file, "--etcd-certfile=" + p.etcd_cert_file,
                 "--etcd-keyfile=" + p.etcd_key_file});
  }
  if (p.etcd_compacts_itself) args.push_back("--etcd-compaction-interval=0");
  if (!p.bind_address.empty()) {
    args.insert(args.end(),
                {"--bind-address=" + p.bind_address, "--advertise-address=" + p.bind_address});
  }
  args.insert(args.end(),
              {"--secure-port=" + std::to_string(p.apiserver_port),
               "--tls-cert-file=" + pki + "/apiserver.crt",
               "--tls-private-key-file=" + pki + "/apiserver.key",
               // The team's CA is in the bundle; the API server reloads the file, so
               // replacing that CA revokes the team's old credential without a restart.
               "--client-ca-file=" + pki + "/client-ca.crt",
               "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
               "--service-account-key-file=" + pki + "/sa.pub",
               "--service-account-signing-key-file=" + pki + "/sa.key",
               "--service-cluster-ip-range=" + p.service_cidr, "--authorization-mode=RBAC",
               // Whether a privileged pod may run is the syncer's to decide from the
               // Tenant (--allowed-privileged-features); the virtual API server
               // accepts it so the syncer can say why it is refused.
               "--allow-privileged=true",
               // No endpoint for the virtual `kubernetes` Service: a loopback address
               // may not be one, and the team's pods, which run on the host, reach
               // the API server through the address the syncer gives them
               // (--virtual-service-host).
               "--endpoint-reconciler-type=none"});
  if (!p.apiserver_cert_dir.empty()) args.push_back("--cert-dir=" + p.apiserver_cert_dir);
  if (!p.syncer_kubelet_address.empty()) {
    // Every virtual Node's only address is the syncer's kubelet endpoint
    // (an InternalIP), which checks this certificate.
    args.insert(args.end(), {"--kubelet-client-certificate=" + pki + "/kubelet-client.crt",
                             "--kubelet-client-key=" + pki + "/kubelet-client.key",
                             "--kubelet-certificate-authority=" + pki + "/ca.crt",
                             "--kubelet-preferred-address-types=InternalIP"});
  }
  args.insert(args.end(),
              {"--profiling=false", "--v=1",
               // A virtual cluster serves one team: a few hundred objects and a
               // handful of clients. Events churn and are read rarely, so they are
               // not watch-cached; priority-and-fairness is sized for thousands of
               // clients.
               "--watch-cache-sizes=events#0", "--enable-priority-and-fairness=false",
               "--enable-garbage-collector=true", "--max-requests-inflight=100",
               "--max-mutating-requests-inflight=50", "--event-ttl=30m",
               // API groups a team's cluster without nodes of its own does not use:
               // each costs start-up CPU (storage, OpenAPI, discovery) and memory.
               // Priority and fairness is off; node (RuntimeClass) and certificate
               // signing belong to the host; the alpha groups are off by default
               // anyway but named so the set is explicit. resource.k8s.io/v1 stays
               // served: the ResourceQuota controller lists its ResourceClaims and
               // DeviceClasses (DRA is GA) and, without them, logs failed watches
               // and never syncs; the older DRA versions are off.
               "--runtime-config=flowcontrol.apiserver.k8s.io/v1=false,"
               "resource.k8s.io/v1beta1=false,resource.k8s.io/v1beta2=false,node.k8s.io/v1=false,"
               "certificates.k8s.io/v1=false,certificates.k8s.io/v1beta1=false",
               // The admission plugins of those groups would wait for informers of
               // APIs that are not served.
               "--disable-admission-plugins=RuntimeClass,CertificateApproval,CertificateSigning,"
               "CertificateSubjectRestriction,ClusterTrustBundleAttest"});
  return args;
}

std::vector<std::string> ControllerManagerArgs(const ControlPlanePlacement& p) {
  std::vector<std::string> args = {"--kubeconfig=" + p.kubeconfig,
                                   "--authentication-kubeconfig=" + p.kubeconfig,
                                   "--authorization-kubeconfig=" + p.kubeconfig,
                                   // Its endpoints are asked with tokens (TokenReview) or not at
                                   // all; looking up client CAs in the cluster would find no
                                   // front-proxy (requestheader) CA, which no API server here has,
                                   // and log that as an error every few seconds.
                                   "--authentication-skip-lookup=true"};
  if (!p.bind_address.empty()) args.push_back("--bind-address=" + p.bind_address);
  if (p.controller_manager_port != 0) {
    args.push_back("--secure-port=" + std::to_string(p.controller_manager_port));
  }
  if (!p.controller_manager_cert_dir.empty()) {
    args.push_back("--cert-dir=" + p.controller_manager_cert_dir);
  }
  args.insert(
      args.end(),
      {"--leader-elect=false", "--service-account-private-key-file=" + p.pki_dir + "/sa.key",
       "--root-ca-file=" + p.pki_dir + "/ca.crt", "--use-service-account-credentials=false",
       // No kubelet or CNI in a virtual cluster: no node IP ranges.
       "--allocate-node-cidrs=false", "--profiling=false", "--v=1",
       "--controllers=" + Join(VirtualClusterControllers())});
  return args;
}

std::vector<std::string> SyncerArgs(const ControlPlaneRequest& r, const ControlPlanePlacement& p) {
  std::vector<std::string> args = {"--tenant=" + r.spec.name, "--queue=" + r.spec.name,
                                   "--host-namespace=" + r.host_namespace,
                                   "--virtual-kubeconfig=" + p.syncer_virtual_kubeconfig};
  if (!p.syncer_host_kubeconfig.empty()) {
    args.push_back("--host-kubeconfig=" + p.syncer_host_kubeconfig);
  }
  args.insert(args.end(), {"--virtual-service-host=" + p.virtual_service_host,
                           "--virtual-service-port=" + std::to_string(p.virtual_service_port),
                           // The range both API servers share: the host copy of a
                           // Service asks for the team's own address.
                           "--service-cidr=" + p.service_cidr,
                           "--health-address=" + p.syncer_health_address, "--sync-endpoints",
                           // One syncer per tenant, restarted by its backend.
                           "--leader-elect=false"});
  if (!p.syncer_kubelet_address.empty()) {
    const std::string& pki =
        p.syncer_kubelet_pki_dir.empty() ? p.pki_dir : p.syncer_kubelet_pki_dir;
    args.insert(args.end(), {"--kubelet-address=" + p.syncer_kubelet_address,
                             "--kubelet-tls-cert-file=" + pki + "/syncer-kubelet.crt",
                             "--kubelet-tls-key-file=" + pki + "/syncer-kubelet.key",
                             "--kubelet-client-ca-file=" + pki + "/ca.crt"});
  }
  if (!p.syncer_pod_netns.empty()) {
    args.insert(args.end(), {"--pod-netns=" + p.syncer_pod_netns,
                             "--pod-api-address=" + p.syncer_pod_api_address,
                             "--pod-dns-address=" + p.syncer_pod_dns_address});
  }
  for (std::string& arg : SyncerPolicyArgs(r)) args.push_back(std::move(arg));
  return args;
}

}  // namespace

ControlPlaneArgs RenderControlPlaneArgs(const ControlPlaneRequest& request,
                                        const ControlPlanePlacement& placement) {
  return {.apiserver = ApiServerArgs(placement),
          .controller_manager = ControllerManagerArgs(placement),
          .syncer = SyncerArgs(request, placement)};
}

std::vector<std::string> SyncerPolicyArgs(const ControlPlaneRequest& r) {
  const IsolationSpec& iso = r.spec.isolation;
  std::vector<std::string> selector;
  for (const auto& [k, v] : iso.node_selector) selector.push_back(k + "=" + v);
  return {
      "--scheduler-name=" + r.scheduler_name,
      "--pod-security=" + iso.pod_security,
      "--allowed-privileged-features=" + Join(iso.allowed_privileged_features),
      "--node-selector=" + Join(selector),
      "--tolerations=" + iso.tolerations_json,
      "--allowed-tolerations=" + iso.allowed_tolerations_json,
      "--allowed-runtime-classes=" + Join(iso.allowed_runtime_classes),
      "--allowed-volume-types=" +
          Join(iso.allowed_volume_types.empty() ? DefaultVolumeTypes() : iso.allowed_volume_types),
      "--allowed-csi-drivers=" + Join(iso.allowed_csi_drivers),
      "--allowed-device-classes=" + Join(iso.allowed_device_classes),
      "--allowed-priority-classes=" + Join(r.allowed_priority_classes),
      "--allowed-service-types=" + Join(iso.allowed_service_types)};
}

std::vector<std::string> VirtualClusterControllers() {
  return {"serviceaccount-controller",
          "serviceaccount-token-controller",
          "namespace-controller",
          "garbage-collector-controller",
          "replicaset-controller",
          "deployment-controller",
          "statefulset-controller",
          "job-controller",
          "cronjob-controller",
          "ttl-after-finished-controller",
          "endpoints-controller",
          "endpointslice-controller",
          "disruption-controller",
          "pod-garbage-collector-controller",
          "resourcequota-controller",
          "root-ca-certificate-publisher-controller",
          "clusterrole-aggregation-controller",
          "persistentvolumeclaim-protection-controller"};
}

}  // namespace vtenant::op

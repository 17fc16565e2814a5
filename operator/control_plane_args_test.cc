// The command lines both backends run: pinned in full for the process
// backend's placement, and for the StatefulSet backend's the arguments its
// placement leaves out, everything else being the same.
#include "operator/control_plane_args.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace vtenant::op {
namespace {

using Args = std::vector<std::string>;

ControlPlaneRequest Request() {
  ControlPlaneRequest r;
  r.spec.name = "nlp";
  r.spec.isolation.allowed_privileged_features = {"hostPath"};
  r.spec.isolation.node_selector = {{"pool", "gpu"}};
  r.host_namespace = "vtenant-nlp";
  r.allowed_priority_classes = {"inference", "train"};
  return r;
}

// Where the process backend puts tenant nlp (loopback, files under its
// folder, one etcd shared with authentication).
ControlPlanePlacement ProcessPlacement() {
  const std::string t = "/state/tenants/nlp";
  return {.etcd_servers = "https://127.0.0.1:2379",
          .etcd_prefix = "/vtenant/nlp/",
          .etcd_ca_file = t + "/apiserver/pki/etcd-ca.crt",
          .etcd_cert_file = t + "/apiserver/pki/etcd-client.crt",
          .etcd_key_file = t + "/apiserver/pki/etcd-client.key",
          .etcd_compacts_itself = true,
          .bind_address = "127.0.0.1",
          .apiserver_port = 34567,
          .pki_dir = t + "/apiserver/pki",
          .service_cidr = "10.96.0.0/16",
          .apiserver_cert_dir = t + "/apiserver/generated-certs",
          .kubeconfig = t + "/apiserver/admin.kubeconfig",
          .controller_manager_port = 34568,
          .controller_manager_cert_dir = t + "/controller-manager/generated-certs",
          .syncer_virtual_kubeconfig = t + "/syncer/virtual.kubeconfig",
          .syncer_host_kubeconfig = t + "/syncer/host.kubeconfig",
          .virtual_service_host = "127.0.0.1",
          .virtual_service_port = 34567,
          .syncer_health_address = "127.0.0.1:34569",
          .syncer_kubelet_address = "127.0.0.1:34570"};
}

// Where the StatefulSet backend puts it: one pod, etcd on localhost without
// TLS, the syncer as the pod's ServiceAccount on the host.
ControlPlanePlacement PodPlacement() {
  return {.etcd_servers = "http://127.0.0.1:2379",
          .apiserver_port = 6443,
          .pki_dir = "/etc/vtenant/pki",
          .service_cidr = "10.96.0.0/16",
          .kubeconfig = "/etc/vtenant/kubeconfig/config",
          .syncer_virtual_kubeconfig = "/etc/vtenant/syncer/config",
          .virtual_service_host = "vc-nlp.vtenant-nlp.svc",
          .virtual_service_port = 443,
          .syncer_health_address = "0.0.0.0:8081"};
}

const Args kProfile = {
    "--profiling=false",
    "--v=1",
    "--watch-cache-sizes=events#0",
    "--enable-priority-and-fairness=false",
    "--enable-garbage-collector=true",
    "--max-requests-inflight=100",
    "--max-mutating-requests-inflight=50",
    "--event-ttl=30m",
    "--runtime-config=flowcontrol.apiserver.k8s.io/v1=false,"
    "resource.k8s.io/v1beta1=false,resource.k8s.io/v1beta2=false,node.k8s.io/v1=false,"
    "certificates.k8s.io/v1=false,certificates.k8s.io/v1beta1=false",
    "--disable-admission-plugins=RuntimeClass,CertificateApproval,CertificateSigning,"
    "CertificateSubjectRestriction,ClusterTrustBundleAttest"};

const char kControllers[] =
    "--controllers=serviceaccount-controller,serviceaccount-token-controller,"
    "namespace-controller,garbage-collector-controller,replicaset-controller,"
    "deployment-controller,statefulset-controller,job-controller,cronjob-controller,"
    "ttl-after-finished-controller,endpoints-controller,endpointslice-controller,"
    "disruption-controller,pod-garbage-collector-controller,resourcequota-controller,"
    "root-ca-certificate-publisher-controller,clusterrole-aggregation-controller,"
    "persistentvolumeclaim-protection-controller";

const Args kPolicy = {"--scheduler-name=kai-scheduler",
                      "--pod-security=baseline",
                      "--allowed-privileged-features=hostPath",
                      "--node-selector=pool=gpu",
                      "--tolerations=[]",
                      "--allowed-tolerations=[]",
                      "--allowed-runtime-classes=",
                      "--allowed-volume-types=configMap,secret,downwardAPI,emptyDir,projected,"
                      "persistentVolumeClaim,ephemeral",
                      "--allowed-csi-drivers=",
                      "--allowed-device-classes=",
                      "--allowed-priority-classes=inference,train",
                      "--allowed-service-types=ClusterIP"};

Args Concat(Args a, const Args& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Each flag written out again, on purpose: a change to the rendered command
// line must show up here as a change to the expected one.
TEST(ControlPlaneArgsTest, TheProcessBackendsCommandLinesInFull) {
  const ControlPlaneArgs args = RenderControlPlaneArgs(Request(), ProcessPlacement());
  const std::string pki = "/state/tenants/nlp/apiserver/pki";
  EXPECT_EQ(args.apiserver,
            Concat({"--etcd-servers=https://127.0.0.1:2379",
                    "--etcd-prefix=/vtenant/nlp/",
                    "--etcd-cafile=" + pki + "/etcd-ca.crt",
                    "--etcd-certfile=" + pki + "/etcd-client.crt",
                    "--etcd-keyfile=" + pki + "/etcd-client.key",
                    "--etcd-compaction-interval=0",
                    "--bind-address=127.0.0.1",
                    "--advertise-address=127.0.0.1",
                    "--secure-port=34567",
                    "--tls-cert-file=" + pki + "/apiserver.crt",
                    "--tls-private-key-file=" + pki + "/apiserver.key",
                    "--client-ca-file=" + pki + "/client-ca.crt",
                    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                    "--service-account-key-file=" + pki + "/sa.pub",
                    "--service-account-signing-key-file=" + pki + "/sa.key",
                    "--service-cluster-ip-range=10.96.0.0/16",
                    "--authorization-mode=RBAC",
                    "--allow-privileged=true",
                    "--endpoint-reconciler-type=none",
                    "--cert-dir=/state/tenants/nlp/apiserver/generated-certs",
                    "--kubelet-client-certificate=" + pki + "/kubelet-client.crt",
                    "--kubelet-client-key=" + pki + "/kubelet-client.key",
                    "--kubelet-certificate-authority=" + pki + "/ca.crt",
                    "--kubelet-preferred-address-types=InternalIP"},
                   kProfile));
  const std::string kubeconfig = "/state/tenants/nlp/apiserver/admin.kubeconfig";
  EXPECT_EQ(args.controller_manager,
            (Args{"--kubeconfig=" + kubeconfig, "--authentication-kubeconfig=" + kubeconfig,
                  "--authorization-kubeconfig=" + kubeconfig, "--authentication-skip-lookup=true",
                  "--bind-address=127.0.0.1", "--secure-port=34568",
                  "--cert-dir=/state/tenants/nlp/controller-manager/generated-certs",
                  "--leader-elect=false", "--service-account-private-key-file=" + pki + "/sa.key",
                  "--root-ca-file=" + pki + "/ca.crt", "--use-service-account-credentials=false",
                  "--allocate-node-cidrs=false", "--profiling=false", "--v=1", kControllers}));
  EXPECT_EQ(args.syncer,
            Concat({"--tenant=nlp", "--queue=nlp", "--host-namespace=vtenant-nlp",
                    "--virtual-kubeconfig=/state/tenants/nlp/syncer/virtual.kubeconfig",
                    "--host-kubeconfig=/state/tenants/nlp/syncer/host.kubeconfig",
                    "--virtual-service-host=127.0.0.1", "--virtual-service-port=34567",
                    "--service-cidr=10.96.0.0/16", "--health-address=127.0.0.1:34569",
                    "--sync-endpoints", "--leader-elect=false", "--kubelet-address=127.0.0.1:34570",
                    "--kubelet-tls-cert-file=" + pki + "/syncer-kubelet.crt",
                    "--kubelet-tls-key-file=" + pki + "/syncer-kubelet.key",
                    "--kubelet-client-ca-file=" + pki + "/ca.crt"},
                   kPolicy));
}

// Every argument of the pod's command lines is the process backend's with
// the placement's values, less what the pod's placement does not name.
TEST(ControlPlaneArgsTest, ThePodDiffersOnlyWhereItsPlacementDoes) {
  const ControlPlaneArgs args = RenderControlPlaneArgs(Request(), PodPlacement());
  EXPECT_EQ(args.apiserver,
            Concat({"--etcd-servers=http://127.0.0.1:2379", "--secure-port=6443",
                    "--tls-cert-file=/etc/vtenant/pki/apiserver.crt",
                    "--tls-private-key-file=/etc/vtenant/pki/apiserver.key",
                    "--client-ca-file=/etc/vtenant/pki/client-ca.crt",
                    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                    "--service-account-key-file=/etc/vtenant/pki/sa.pub",
                    "--service-account-signing-key-file=/etc/vtenant/pki/sa.key",
                    "--service-cluster-ip-range=10.96.0.0/16", "--authorization-mode=RBAC",
                    "--allow-privileged=true", "--endpoint-reconciler-type=none"},
                   kProfile));
  const std::string kubeconfig = "/etc/vtenant/kubeconfig/config";
  EXPECT_EQ(
      args.controller_manager,
      (Args{"--kubeconfig=" + kubeconfig, "--authentication-kubeconfig=" + kubeconfig,
            "--authorization-kubeconfig=" + kubeconfig, "--authentication-skip-lookup=true",
            "--leader-elect=false", "--service-account-private-key-file=/etc/vtenant/pki/sa.key",
            "--root-ca-file=/etc/vtenant/pki/ca.crt", "--use-service-account-credentials=false",
            "--allocate-node-cidrs=false", "--profiling=false", "--v=1", kControllers}));
  EXPECT_EQ(args.syncer,
            Concat({"--tenant=nlp", "--queue=nlp", "--host-namespace=vtenant-nlp",
                    "--virtual-kubeconfig=/etc/vtenant/syncer/config",
                    "--virtual-service-host=vc-nlp.vtenant-nlp.svc", "--virtual-service-port=443",
                    "--service-cidr=10.96.0.0/16", "--health-address=0.0.0.0:8081",
                    "--sync-endpoints", "--leader-elect=false"},
                   kPolicy));
}

// Pods on the real node: the syncer relays the API server into the node's
// namespace and gives the pods that address; nothing else changes.
TEST(ControlPlaneArgsTest, PodsOnANodeInANamespaceOfItsOwn) {
  ControlPlanePlacement placement = ProcessPlacement();
  placement.virtual_service_host = "10.87.0.2";
  placement.syncer_pod_netns = "vtenant-0123abcd";
  placement.syncer_pod_api_address = "10.87.0.2:34567";
  placement.syncer_pod_dns_address = "10.87.0.2:34567";
  const ControlPlaneArgs args = RenderControlPlaneArgs(Request(), placement);
  const ControlPlaneArgs loopback = RenderControlPlaneArgs(Request(), ProcessPlacement());
  EXPECT_EQ(args.apiserver, loopback.apiserver);
  EXPECT_EQ(args.controller_manager, loopback.controller_manager);
  EXPECT_EQ(args.syncer,
            Concat({"--tenant=nlp", "--queue=nlp", "--host-namespace=vtenant-nlp",
                    "--virtual-kubeconfig=/state/tenants/nlp/syncer/virtual.kubeconfig",
                    "--host-kubeconfig=/state/tenants/nlp/syncer/host.kubeconfig",
                    "--virtual-service-host=10.87.0.2", "--virtual-service-port=34567",
                    "--service-cidr=10.96.0.0/16", "--health-address=127.0.0.1:34569",
                    "--sync-endpoints", "--leader-elect=false", "--kubelet-address=127.0.0.1:34570",
                    "--kubelet-tls-cert-file=/state/tenants/nlp/apiserver/pki/syncer-kubelet.crt",
                    "--kubelet-tls-key-file=/state/tenants/nlp/apiserver/pki/syncer-kubelet.key",
                    "--kubelet-client-ca-file=/state/tenants/nlp/apiserver/pki/ca.crt",
                    "--pod-netns=vtenant-0123abcd", "--pod-api-address=10.87.0.2:34567",
                    "--pod-dns-address=10.87.0.2:34567"},
                   kPolicy));
}

TEST(ControlPlaneArgsTest, ThePolicyFollowsTheTenant) {
  ControlPlaneRequest r = Request();
  r.scheduler_name = "other-scheduler";
  r.spec.isolation.pod_security = "restricted";
  r.spec.isolation.allowed_volume_types = {"configMap"};
  r.spec.isolation.allowed_service_types = {"ClusterIP", "NodePort"};
  const Args syncer = RenderControlPlaneArgs(r, PodPlacement()).syncer;
  for (const char* arg :
       {"--scheduler-name=other-scheduler", "--pod-security=restricted",
        "--allowed-volume-types=configMap", "--allowed-service-types=ClusterIP,NodePort"}) {
    EXPECT_NE(std::find(syncer.begin(), syncer.end(), arg), syncer.end()) << arg;
  }
}

TEST(ControlPlaneArgsTest, VirtualControllersLeaveNodesToTheHost) {
  const auto controllers = VirtualClusterControllers();
  auto has = [&](const std::string& c) {
    return std::find(controllers.begin(), controllers.end(), c) != controllers.end();
  };
  EXPECT_TRUE(has("namespace-controller"));
  EXPECT_TRUE(has("garbage-collector-controller"));
  EXPECT_TRUE(has("serviceaccount-token-controller"));
  // The syncer's mirrored Nodes rely on it (syncer/node_syncer.h).
  EXPECT_TRUE(has("pod-garbage-collector-controller"));
  // Claims carry its finalizer; without it no namespace with one could go.
  EXPECT_TRUE(has("persistentvolumeclaim-protection-controller"));
  EXPECT_FALSE(has("node-lifecycle-controller"));
  EXPECT_FALSE(has("node-ipam-controller"));
  EXPECT_FALSE(has("*"));
}

}  // namespace
}  // namespace vtenant::op

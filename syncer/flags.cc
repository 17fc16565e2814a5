#include "syncer/flags.h"

#include <optional>
#include <set>

#include "base/flags.h"

namespace vtenant::syncer {

std::string Usage() {
  return R"(vtenant-syncer: copies one tenant's pods from its virtual cluster to the host.

Usage: vtenant-syncer --tenant=NAME --virtual-kubeconfig=PATH [flags]

  --tenant NAME                       the Tenant this syncer serves (required)
  --queue NAME                        KAI queue every host pod is charged to (default: the tenant)
  --host-namespace NS                 where host pods go (default: vtenant-<tenant>)
  --virtual-kubeconfig PATH           cluster-admin kubeconfig of the virtual API server (required)
  --host-kubeconfig PATH              kubeconfig of the host, limited to the host namespace
                                      (default: empty = the pod's in-cluster service account)
  --scheduler-name NAME               the host's vtenant scheduler: every host pod's
                                      schedulerName, whatever the pod asked for
                                      (default: kai-scheduler)
  --pod-security LEVEL                Pod Security Standards level every pod is held to, on
                                      every container kind: baseline or restricted
                                      (default: baseline)
  --allowed-privileged-features LIST  comma list of exceptions to that level a pod may use:
                                      hostPath, hostNetwork, hostPID, hostIPC, hostPorts,
                                      privileged, capabilities, unconfinedSeccomp,
                                      unconfinedAppArmor, seLinux, procMount, unsafeSysctls,
                                      windowsHostProcess (default: none)
  --node-selector k=v,...             node selector forced onto every host pod (default: none)
  --tolerations JSON                  JSON array of tolerations added to every host pod
                                      (default: none)
  --allowed-tolerations JSON          JSON array of {key, operator, value, effect}: the
                                      tolerations a pod may carry itself; others are left off
                                      the host pod with a Warning Event (default: none)
  --allowed-runtime-classes LIST      runtimeClassNames a pod may name (default: none)
  --allowed-volume-types LIST         pod volume types allowed, besides hostPath (a privileged
                                      feature) and csi (by driver); empty = the default
                                      (default: configMap,secret,downwardAPI,emptyDir,projected,
                                      persistentVolumeClaim,ephemeral)
  --allowed-csi-drivers LIST          drivers of inline csi volumes (default: none)
  --allowed-device-classes LIST       host DeviceClasses the team's ResourceClaims and
                                      ResourceClaimTemplates may ask for; set, they are
                                      copied to the host (default: none = pods that name
                                      claims are refused)
  --allowed-service-types LIST        Service types besides ClusterIP: NodePort, LoadBalancer
                                      (default: ClusterIP only)
  --service-cidr CIDR                 the host's Service range, which the virtual API server
                                      shares: a Service's cluster IP from its dynamic band is
                                      asked for on the host copy, so the Service keeps it
                                      (default: empty = the host picks, and the Service is
                                      created again with that address)
  --virtual-service-host HOST         what pods get as KUBERNETES_SERVICE_HOST: the virtual API
                                      server as the host network reaches it (default: unset)
  --virtual-service-port PORT         what pods get as KUBERNETES_SERVICE_PORT (default: 443)
  --allowed-priority-classes LIST     host priority classes a pod may name; the operator
                                      passes the host's that the Tenant allows (default: none)
  --health-address HOST:PORT          /healthz, /readyz and /metrics (default: 0.0.0.0:8081;
                                      empty = off)
  --kubelet-address HOST:PORT         serve the kubelet API of the virtual Nodes here (logs,
                                      exec, attach, port-forward of the team's pods, answered by
                                      the host API server) and give it as every virtual Node's
                                      address; HOST numeric (default: empty = off)
  --kubelet-tls-cert-file FILE        that endpoint's serving certificate (PEM)
  --kubelet-tls-key-file FILE         its key (PEM)
  --kubelet-client-ca-file FILE       the CA whose certificate with Common Name
                                      vtenant:kubelet-client (the virtual API server's) is the
                                      only client the endpoint accepts
  --leader-elect                      sync only while holding the Lease vtenant-syncer-<tenant>
                                      in the host namespace; a Lease lost (say, the host API
                                      server away) is competed for again, caches kept, /readyz
                                      failing meanwhile (default: false)
  --sync-endpoints                    copy the Endpoints and the hand-written EndpointSlices of
                                      Services without a selector to the host; the host
                                      credentials must allow endpoints and discovery.k8s.io
                                      endpointslices (default: false)
  --pod-netns NAME                    the network namespace of the node the tenant's pods run
                                      on (the local environment's real node); the syncer opens
                                      the pods' endpoints inside it (needs CAP_SYS_ADMIN)
                                      (default: none)
  --pod-api-address IP:PORT           where, inside --pod-netns, the virtual API server is
                                      relayed to its address on this machine's loopback; pair
                                      it with --virtual-service-host/--virtual-service-port
                                      (default: none)
  --pod-dns-address IP:PORT           where, inside --pod-netns, the virtual cluster's DNS
                                      answers (UDP); the syncer makes the host Service
                                      vtenant-dns (port 53) lead there and gives the pods that
                                      ask for the cluster's DNS its cluster IP (default: none)
  --pod-workers N                     pods reconciled in parallel (default: 8)
  --kube-api-qps Q                    requests per second to each API server, 0 = unlimited
                                      (default: 100)
  --kube-api-burst N                  requests allowed above that rate at once (default: 200)
  -h, --help                          this help
)";
}

namespace {

// --name a,b: a set of names (ParseNameList).
FlagBinding NameListFlag(std::string name, std::set<std::string, std::less<>>* out) {
  return {.name = std::move(name), .set = [out](const std::string& value) {
            *out = ParseNameList(value);
            return Status::Ok();
          }};
}

// What a flag alone cannot say: the defaults that follow --tenant, the
// required flags, and the flags that go together.
Status SettleDependentFlags(SyncerFlags& flags) {
  SyncerConfig& c = flags.config;
  if (c.tenant.empty()) return InvalidArgument("--tenant is required");
  if (flags.virtual_kubeconfig.empty()) return InvalidArgument("--virtual-kubeconfig is required");
  if (c.queue.empty()) c.queue = c.tenant;
  if (c.host_namespace.empty()) c.host_namespace = "vtenant-" + c.tenant;
  if (!c.kubelet_address.empty()) {
    for (const auto& [flag, value] :
         {std::pair{"--kubelet-tls-cert-file", flags.kubelet_tls_cert_file},
          {"--kubelet-tls-key-file", flags.kubelet_tls_key_file},
          {"--kubelet-client-ca-file", flags.kubelet_client_ca_file}}) {
      if (value.empty())
        return InvalidArgument(std::string(flag) + " is required with --kubelet-address");
    }
  }
  if (!flags.pod_api_address.empty() && flags.pod_netns.empty())
    return InvalidArgument("--pod-api-address needs --pod-netns");
  if (!flags.pod_dns_address.empty() && flags.pod_netns.empty())
    return InvalidArgument("--pod-dns-address needs --pod-netns");
  return Status::Ok();
}

}  // namespace

Result<SyncerFlags> ParseFlags(const std::vector<std::string>& args) {
  SyncerFlags flags;
  SyncerConfig& c = flags.config;
  // The syncer's own table of flags, alike in form to every program's
  // (base/flags.h).
  const std::vector<FlagBinding> table = {
      TextFlag("tenant", &c.tenant),
      TextFlag("queue", &c.queue),
      TextFlag("host-namespace", &c.host_namespace),
      TextFlag("virtual-kubeconfig", &flags.virtual_kubeconfig),
      TextFlag("host-kubeconfig", &flags.host_kubeconfig),
      NonEmptyTextFlag("scheduler-name", &c.scheduler_name),
      ParsedFlag("pod-security", &c.pod_security, ParsePodSecurityLevel),
      ParsedFlag("allowed-privileged-features", &c.allowed_privileged_features,
                 ParsePrivilegedFeatures),
      ParsedFlag("node-selector", &c.node_selector, ParseNodeSelector),
      ParsedFlag("tolerations", &c.tolerations, ParseTolerations),
      ParsedFlag("allowed-tolerations", &c.allowed_tolerations, ParseAllowedTolerations),
      NameListFlag("allowed-runtime-classes", &c.allowed_runtime_classes),
      ParsedFlag("allowed-volume-types", &c.allowed_volume_types, ParseVolumeTypes),
      NameListFlag("allowed-csi-drivers", &c.allowed_csi_drivers),
      NameListFlag("allowed-device-classes", &c.allowed_device_classes),
      ParsedFlag("allowed-service-types", &c.allowed_service_types, ParseServiceTypes),
      {"service-cidr",
       [&](const std::string& v) {
         c.service_range.reset();
         if (v.empty()) return Status::Ok();
         VT_ASSIGN_OR_RETURN(c.service_range, ParseIpRangeFlag("service-cidr", v));
         return Status::Ok();
       }},
      TextFlag("virtual-service-host", &c.virtual_service_host),
      WholeNumberFlag("virtual-service-port", &c.virtual_service_port, 1, 65535),
      NameListFlag("allowed-priority-classes", &c.allowed_priority_classes),
      AddressFlag("health-address", &flags.health_address),
      {"kubelet-address",
       [&](const std::string& v) {
         c.kubelet_address.clear();
         c.kubelet_port = 0;
         if (v.empty()) return Status::Ok();
         Result<HostPort> address = ParseAddressFlag("kubelet-address", v);
         if (!address.ok()) return address.status();
         c.kubelet_address = address->host;
         c.kubelet_port = address->port;
         return Status::Ok();
       }},
      TextFlag("kubelet-tls-cert-file", &flags.kubelet_tls_cert_file),
      TextFlag("kubelet-tls-key-file", &flags.kubelet_tls_key_file),
      TextFlag("kubelet-client-ca-file", &flags.kubelet_client_ca_file),
      SwitchFlag("leader-elect", &flags.leader_elect),
      SwitchFlag("sync-endpoints", &c.sync_endpoints),
      TextFlag("pod-netns", &flags.pod_netns),
      AddressFlag("pod-api-address", &flags.pod_api_address),
      AddressFlag("pod-dns-address", &flags.pod_dns_address),
      WholeNumberFlag("pod-workers", &flags.pod_workers, 1, 256),
      NumberFlag("kube-api-qps", &flags.kube_api_qps, 0),
      WholeNumberFlag("kube-api-burst", &flags.kube_api_burst, 1, 100000),
  };
  VT_ASSIGN_OR_RETURN(SplitCommandLine split, ApplyFlags(args, table));
  flags.help = split.help;
  if (flags.help) return flags;
  VT_RETURN_IF_ERROR(SettleDependentFlags(flags));
  return flags;
}

}  // namespace vtenant::syncer

#include "syncer/flags.h"

#include <map>
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

// Split first and read after (SplitFlags, not ApplyFlags): most defaults and
// checks here depend on other flags, so each value is read in one place, in
// an order that reads the flags it depends on first.
Result<SyncerFlags> ParseFlags(const std::vector<std::string>& args) {
  SyncerFlags flags;
  static const std::vector<FlagSpec> kKnown = {{.name = "tenant"},
                                               {.name = "queue"},
                                               {.name = "host-namespace"},
                                               {.name = "virtual-kubeconfig"},
                                               {.name = "host-kubeconfig"},
                                               {.name = "scheduler-name"},
                                               {.name = "pod-security"},
                                               {.name = "allowed-privileged-features"},
                                               {.name = "node-selector"},
                                               {.name = "tolerations"},
                                               {.name = "allowed-tolerations"},
                                               {.name = "allowed-runtime-classes"},
                                               {.name = "allowed-volume-types"},
                                               {.name = "allowed-csi-drivers"},
                                               {.name = "allowed-service-types"},
                                               {.name = "service-cidr"},
                                               {.name = "virtual-service-host"},
                                               {.name = "virtual-service-port"},
                                               {.name = "allowed-priority-classes"},
                                               {.name = "health-address"},
                                               {.name = "kubelet-address"},
                                               {.name = "kubelet-tls-cert-file"},
                                               {.name = "kubelet-tls-key-file"},
                                               {.name = "kubelet-client-ca-file"},
                                               {.name = "leader-elect", .is_switch = true},
                                               {.name = "sync-endpoints", .is_switch = true},
                                               {.name = "pod-netns"},
                                               {.name = "pod-api-address"},
                                               {.name = "pod-dns-address"},
                                               {.name = "pod-workers"},
                                               {.name = "kube-api-qps"},
                                               {.name = "kube-api-burst"}};
  VT_ASSIGN_OR_RETURN(SplitCommandLine split, SplitFlags(args, kKnown));
  if (split.help) {
    flags.help = true;
    return flags;
  }
  std::map<std::string, std::string> values;
  for (FlagValue& f : split.flags) values[f.name] = std::move(f.value);
  auto get = [&](const std::string& name, std::string fallback = {}) {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  };
  SyncerConfig& c = flags.config;
  c.tenant = get("tenant");
  if (c.tenant.empty()) return InvalidArgument("--tenant is required");
  flags.virtual_kubeconfig = get("virtual-kubeconfig");
  if (flags.virtual_kubeconfig.empty()) return InvalidArgument("--virtual-kubeconfig is required");
  flags.host_kubeconfig = get("host-kubeconfig");
  c.queue = get("queue", c.tenant);
  c.host_namespace = get("host-namespace", "vtenant-" + c.tenant);
  c.scheduler_name = get("scheduler-name", c.scheduler_name);
  if (c.scheduler_name.empty()) return InvalidArgument("--scheduler-name must not be empty");
  Result<PodSecurityLevel> level = ParsePodSecurityLevel(get("pod-security", "baseline"));
  if (!level.ok()) return level.status().WithContext("--pod-security");
  c.pod_security = *level;
  Result<std::set<std::string, std::less<>>> features =
      ParsePrivilegedFeatures(get("allowed-privileged-features"));
  if (!features.ok()) return features.status().WithContext("--allowed-privileged-features");
  c.allowed_privileged_features = std::move(*features);
  Result<std::vector<AllowedToleration>> allowed_tolerations =
      ParseAllowedTolerations(get("allowed-tolerations"));
  if (!allowed_tolerations.ok()) {
    return allowed_tolerations.status().WithContext("--allowed-tolerations");
  }
  c.allowed_tolerations = std::move(*allowed_tolerations);
  c.allowed_runtime_classes = ParseNameList(get("allowed-runtime-classes"));
  Result<std::set<std::string, std::less<>>> volume_types =
      ParseVolumeTypes(get("allowed-volume-types"));
  if (!volume_types.ok()) return volume_types.status().WithContext("--allowed-volume-types");
  c.allowed_volume_types = std::move(*volume_types);
  c.allowed_csi_drivers = ParseNameList(get("allowed-csi-drivers"));
  Result<std::set<std::string, std::less<>>> service_types =
      ParseServiceTypes(get("allowed-service-types"));
  if (!service_types.ok()) return service_types.status().WithContext("--allowed-service-types");
  c.allowed_service_types = std::move(*service_types);
  if (const std::string cidr = get("service-cidr"); !cidr.empty()) {
    c.service_range = IpRange::Parse(cidr);
    if (!c.service_range) {
      return InvalidArgument("--service-cidr: \"" + cidr +
                             "\" is not a range such as 10.96.0.0/12");
    }
  }
  Result<std::map<std::string, std::string>> selector = ParseNodeSelector(get("node-selector"));
  if (!selector.ok()) return selector.status().WithContext("--node-selector");
  c.node_selector = std::move(*selector);
  Result<kube::Object> tolerations = ParseTolerations(get("tolerations"));
  if (!tolerations.ok()) return tolerations.status().WithContext("--tolerations");
  c.tolerations = std::move(*tolerations);
  c.virtual_service_host = get("virtual-service-host");
  VT_ASSIGN_OR_RETURN(
      c.virtual_service_port,
      ParseWholeNumberFlag("virtual-service-port", get("virtual-service-port", "443"), 1, 65535));
  c.allowed_priority_classes = ParseNameList(get("allowed-priority-classes"));
  flags.health_address = get("health-address", flags.health_address);
  if (!flags.health_address.empty())
    VT_RETURN_IF_ERROR(ParseAddressFlag("health-address", flags.health_address).status());
  if (const std::string kubelet = get("kubelet-address"); !kubelet.empty()) {
    VT_ASSIGN_OR_RETURN(HostPort address, ParseAddressFlag("kubelet-address", kubelet));
    c.kubelet_address = address.host;
    c.kubelet_port = address.port;
    flags.kubelet_tls_cert_file = get("kubelet-tls-cert-file");
    flags.kubelet_tls_key_file = get("kubelet-tls-key-file");
    flags.kubelet_client_ca_file = get("kubelet-client-ca-file");
    for (const auto& [flag, value] :
         {std::pair{"--kubelet-tls-cert-file", flags.kubelet_tls_cert_file},
          {"--kubelet-tls-key-file", flags.kubelet_tls_key_file},
          {"--kubelet-client-ca-file", flags.kubelet_client_ca_file}}) {
      if (value.empty())
        return InvalidArgument(std::string(flag) + " is required with --kubelet-address");
    }
  }
  flags.leader_elect = get("leader-elect", "false") == "true";
  c.sync_endpoints = get("sync-endpoints", "false") == "true";
  flags.pod_netns = get("pod-netns");
  flags.pod_api_address = get("pod-api-address");
  if (!flags.pod_api_address.empty()) {
    if (flags.pod_netns.empty()) return InvalidArgument("--pod-api-address needs --pod-netns");
    VT_RETURN_IF_ERROR(ParseAddressFlag("pod-api-address", flags.pod_api_address).status());
  }
  flags.pod_dns_address = get("pod-dns-address");
  if (!flags.pod_dns_address.empty()) {
    if (flags.pod_netns.empty()) return InvalidArgument("--pod-dns-address needs --pod-netns");
    VT_RETURN_IF_ERROR(ParseAddressFlag("pod-dns-address", flags.pod_dns_address).status());
  }
  VT_ASSIGN_OR_RETURN(flags.pod_workers,
                      ParseWholeNumberFlag("pod-workers", get("pod-workers", "8"), 1, 256));
  VT_ASSIGN_OR_RETURN(flags.kube_api_qps,
                      ParseNumberFlag("kube-api-qps", get("kube-api-qps", "100"), 0));
  VT_ASSIGN_OR_RETURN(
      flags.kube_api_burst,
      ParseWholeNumberFlag("kube-api-burst", get("kube-api-burst", "200"), 1, 100000));
  return flags;
}

}  // namespace vtenant::syncer

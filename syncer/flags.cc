#include "syncer/flags.h"

#include <charconv>
#include <cstdlib>
#include <map>
#include <set>

namespace vtenant::syncer {
namespace {

Result<int> ParsePositive(const std::string& flag, const std::string& value, int max) {
  int n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n < 1 ||
      n > max) {
    return InvalidArgument("--" + flag + " \"" + value + "\" must be a whole number from 1 to " +
                           std::to_string(max));
  }
  return n;
}

}  // namespace

std::string Usage() {
  return R"(vtenant-syncer: copies one tenant's pods from its virtual cluster to the host.

Usage: vtenant-syncer --tenant=NAME --virtual-kubeconfig=PATH [flags]

  --tenant NAME                       the Tenant this syncer serves (required)
  --queue NAME                        KAI queue every host pod is charged to (default: the tenant)
  --host-namespace NS                 where host pods go (default: vtenant-<tenant>)
  --virtual-kubeconfig PATH           cluster-admin kubeconfig of the virtual API server (required)
  --host-kubeconfig PATH              kubeconfig of the host, limited to the host namespace
                                      (default: empty = the pod's in-cluster service account)
  --allowed-privileged-features LIST  comma list of hostPath, hostNetwork, hostPID, hostIPC,
                                      privileged, capabilities a pod may use (default: none)
  --node-selector k=v,...             node selector forced onto every host pod (default: none)
  --tolerations JSON                  JSON array of tolerations added to every host pod
                                      (default: none)
  --allowed-service-types LIST        Service types besides ClusterIP: NodePort, LoadBalancer
                                      (default: ClusterIP only)
  --virtual-service-host HOST         what pods get as KUBERNETES_SERVICE_HOST: the virtual API
                                      server as the host network reaches it (default: unset)
  --virtual-service-port PORT         what pods get as KUBERNETES_SERVICE_PORT (default: 443)
  --allowed-priority-classes LIST     host priority classes a pod may name (default:
                                      train,build,inference)
  --health-address HOST:PORT          /healthz, /readyz and /metrics (default: 0.0.0.0:8081;
                                      empty = off)
  --leader-elect                      sync only while holding the Lease vtenant-syncer-<tenant>
                                      in the host namespace; a Lease lost (say, the host API
                                      server away) is competed for again, caches kept, /readyz
                                      failing meanwhile (default: false)
  --sync-endpoints                    copy the Endpoints and the hand-written EndpointSlices of
                                      Services without a selector to the host; the host
                                      credentials must allow endpoints and discovery.k8s.io
                                      endpointslices (default: false)
  --pod-workers N                     pods reconciled in parallel (default: 8)
  --kube-api-qps Q                    requests per second to each API server, 0 = unlimited
                                      (default: 100)
  --kube-api-burst N                  requests allowed above that rate at once (default: 200)
  -h, --help                          this help
)";
}

Result<std::pair<std::string, uint16_t>> ParseAddress(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return InvalidArgument("address \"" + address + "\" is not host:port");
  }
  std::string host = address.substr(0, colon);
  if (host.empty()) host = "0.0.0.0";
  VT_ASSIGN_OR_RETURN(int port,
                      ParsePositive("health-address port", address.substr(colon + 1), 65535));
  return std::pair<std::string, uint16_t>(host, static_cast<uint16_t>(port));
}

Result<SyncerFlags> ParseFlags(const std::vector<std::string>& args) {
  SyncerFlags flags;
  std::map<std::string, std::string> values;
  static const std::set<std::string> kKnown = {"tenant",
                                               "queue",
                                               "host-namespace",
                                               "virtual-kubeconfig",
                                               "host-kubeconfig",
                                               "allowed-privileged-features",
                                               "node-selector",
                                               "tolerations",
                                               "allowed-service-types",
                                               "virtual-service-host",
                                               "virtual-service-port",
                                               "allowed-priority-classes",
                                               "health-address",
                                               "leader-elect",
                                               "sync-endpoints",
                                               "pod-workers",
                                               "kube-api-qps",
                                               "kube-api-burst"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      flags.help = true;
      return flags;
    }
    if (!arg.starts_with("--")) return InvalidArgument("unexpected argument \"" + arg + "\"");
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (!kKnown.contains(name)) return InvalidArgument("unknown flag --" + name + "; see --help");
    if (name == "leader-elect" || name == "sync-endpoints") {
      if (!has_value) value = "true";
      if (value != "true" && value != "false") {
        return InvalidArgument("--" + name + " takes true or false, not \"" + value + "\"");
      }
    } else if (!has_value) {
      if (i + 1 >= args.size()) return InvalidArgument("--" + name + " needs a value");
      value = args[++i];
    }
    values[name] = value;
  }
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
  VT_ASSIGN_OR_RETURN(c.allowed_privileged_features,
                      ParsePrivilegedFeatures(get("allowed-privileged-features")));
  Result<std::set<std::string, std::less<>>> service_types =
      ParseServiceTypes(get("allowed-service-types"));
  if (!service_types.ok()) return service_types.status().WithContext("--allowed-service-types");
  c.allowed_service_types = std::move(*service_types);
  Result<std::map<std::string, std::string>> selector = ParseNodeSelector(get("node-selector"));
  if (!selector.ok()) return selector.status().WithContext("--node-selector");
  c.node_selector = std::move(*selector);
  Result<kube::Object> tolerations = ParseTolerations(get("tolerations"));
  if (!tolerations.ok()) return tolerations.status().WithContext("--tolerations");
  c.tolerations = std::move(*tolerations);
  c.virtual_service_host = get("virtual-service-host");
  VT_ASSIGN_OR_RETURN(
      c.virtual_service_port,
      ParsePositive("virtual-service-port", get("virtual-service-port", "443"), 65535));
  if (values.contains("allowed-priority-classes")) {
    c.allowed_priority_classes.clear();
    std::string list = get("allowed-priority-classes");
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      std::string item =
          list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!item.empty()) c.allowed_priority_classes.insert(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  flags.health_address = get("health-address", flags.health_address);
  if (!flags.health_address.empty())
    VT_RETURN_IF_ERROR(ParseAddress(flags.health_address).status());
  flags.leader_elect = get("leader-elect", "false") == "true";
  c.sync_endpoints = get("sync-endpoints", "false") == "true";
  VT_ASSIGN_OR_RETURN(flags.pod_workers,
                      ParsePositive("pod-workers", get("pod-workers", "8"), 256));
  std::string qps = get("kube-api-qps", "100");
  char* end = nullptr;
  flags.kube_api_qps = std::strtod(qps.c_str(), &end);
  if (qps.empty() || end != qps.c_str() + qps.size() || flags.kube_api_qps < 0) {
    return InvalidArgument("--kube-api-qps \"" + qps + "\" must be a number, 0 or more");
  }
  VT_ASSIGN_OR_RETURN(flags.kube_api_burst,
                      ParsePositive("kube-api-burst", get("kube-api-burst", "200"), 100000));
  return flags;
}

}  // namespace vtenant::syncer

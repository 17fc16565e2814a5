#include "operator/flags.h"

#include "base/duration.h"
#include "base/flags.h"

namespace vtenant::op {

std::string OperatorUsage() {
  return R"(vtenant-operator: turns each Tenant (vtenant.io/v1alpha1) into a host namespace,
a virtual control plane with its kubeconfig Secret vc-<tenant>, and a KAI Queue.

Usage: vtenant-operator [flags]

  --kubeconfig PATH           host cluster; default $KUBECONFIG, in-cluster config,
                              then ~/.kube/config
  --backend-default NAME      control-plane backend for Tenants that name none:
                              process or statefulset (default process)
  --state-dir DIR             process backend: per-tenant folders, pid files, logs and
                              the shared etcd's data (default .vtenant/operator)
  --tools-bin DIR             process backend: where kube-apiserver,
                              kube-controller-manager and etcd are (default: .tools/bin
                              above the binary, then $PATH)
  --syncer-binary PATH        process backend: vtenant-syncer to run per tenant
                              (default ../syncer/vtenant-syncer beside this binary)
  --no-syncer                 process backend: run no syncer (SyncerReady says so and
                              Ready does not wait for it)
  --etcd-servers URL          process backend: the etcd every virtual API server shares,
                              each under /vtenant/<tenant>/ (default: start one in
                              --state-dir)
  --starting-apiservers N     process backend: kube-apiservers that start at once;
                              the others wait their turn, since side by side on a
                              few cores each costs more CPU (0 = no limit; default 5)
  --pod-netns NAME            process backend: the network namespace of the node the
                              tenants' pods run on (the local environment's real
                              node); each syncer opens its pods' endpoints inside it
  --pod-address IP            process backend, with --pod-netns: the node's address
                              there; each tenant's virtual API server is relayed at
                              IP:<its port>, pods get it as KUBERNETES_SERVICE_HOST,
                              and the API server's certificate names it
  --syncer-image IMAGE        statefulset backend: the syncer container's image
                              (default ghcr.io/vtenant/vtenant-syncer:latest)
  --image-registry REGISTRY   statefulset backend: where the control plane's
                              kube-apiserver and kube-controller-manager images
                              are, as REGISTRY/kube-apiserver:<Tenant's Kubernetes
                              version> (default registry.k8s.io)
  --etcd-image IMAGE          statefulset backend: the control plane's etcd image
                              (default registry.k8s.io/etcd:3.6.5-0)
  --scheduler-name NAME       the host's vtenant scheduler: the syncers give every
                              tenant pod this schedulerName (default kai-scheduler)
  --service-cidr CIDR         the host cluster's Service range (its kube-apiserver's
                              --service-cluster-ip-range); every virtual API server
                              gets the same, so a team's Service takes the address of
                              its host copy (default 10.96.0.0/16)
  --health-address HOST:PORT  /healthz, /readyz and /metrics ("" = off;
                              default 127.0.0.1:8082)
  --leader-elect              one active replica, over the Lease
                              <leader-election-namespace>/<leader-election-id>
  --leader-election-namespace NS   the operator's own namespace: its Lease, the one
                              whose pods the NetworkPolicies admit to virtual API
                              servers, and one no Tenant may take (default
                              vtenant-system)
  --reserved-namespaces NS,...  namespaces no Tenant may take, besides kube-system,
                              kube-public, kube-node-lease, default, vtenant-system,
                              vtenant-reservation and the operator's own (the chart
                              passes the scheduler's reservation namespace)
  --leader-election-id NAME        (default vtenant-operator)
  --credentials-namespace NS  where each tenant's CA and certificates are kept
                              (Secret vc-<tenant>-certs): the operator's own
                              namespace, never the tenant's (default
                              $POD_NAMESPACE, else vtenant-system)
  --tenant-credential-lifetime DURATION
                              how long a team's kubeconfig (a client certificate
                              `vtenant rotate-credentials` can revoke) is valid;
                              renewed in its Secret at half its life: 90m, 24h,
                              7d (default 24h)
  --workers N                 Tenants reconciled at once (default 8)
  -h, --help                  this text
)";
}

namespace {

// "90m", "24h", "7d", "1.5h" (base/duration.h, days allowed): at least a
// minute, at most a year.
Result<std::chrono::seconds> ParseLifetime(const std::string& v) {
  Result<std::chrono::nanoseconds> d = ParseDuration(v, DurationUnits::kWithDays);
  if (!d.ok()) return InvalidArgument("needs a duration such as 90m, 24h or 7d, not \"" + v + "\"");
  if (*d < std::chrono::minutes(1) || *d > std::chrono::hours(24 * 366)) {
    return InvalidArgument("between a minute and a year, not " + v);
  }
  return std::chrono::ceil<std::chrono::seconds>(*d);
}

}  // namespace

Result<OperatorFlags> ParseOperatorFlags(const std::vector<std::string>& args) {
  OperatorFlags f;
  // The operator's own table of flags, alike in form to every program's
  // (base/flags.h).
  const std::vector<FlagBinding> table = {
      TextFlag("kubeconfig", &f.kubeconfig),
      ParsedFlag("backend-default", &f.backend_default, ParseBackend),
      TextFlag("state-dir", &f.state_dir),
      TextFlag("tools-bin", &f.tools_bin),
      TextFlag("syncer-binary", &f.syncer_binary),
      SwitchFlag("no-syncer", &f.no_syncer),
      TextFlag("etcd-servers", &f.etcd_servers),
      TextFlag("syncer-image", &f.syncer_image),
      TextFlag("image-registry", &f.image_registry),
      TextFlag("etcd-image", &f.etcd_image),
      NonEmptyTextFlag("scheduler-name", &f.scheduler_name),
      {"service-cidr",
       [&](const std::string& v) {
         VT_RETURN_IF_ERROR(ParseIpRangeFlag("service-cidr", v).status());
         f.service_cidr = v;
         return Status::Ok();
       }},
      TextFlag("pod-netns", &f.pod_netns),
      IpAddressFlag("pod-address", &f.pod_address),
      AddressFlag("health-address", &f.health_address),
      SwitchFlag("leader-elect", &f.leader_elect),
      TextFlag("leader-election-namespace", &f.leader_election_namespace),
      TextFlag("leader-election-id", &f.leader_election_id),
      TextFlag("credentials-namespace", &f.credentials_namespace),
      CommaListFlag("reserved-namespaces", &f.reserved_namespaces),
      WholeNumberFlag("workers", &f.workers, 1, 256),
      ParsedFlag("tenant-credential-lifetime", &f.tenant_credential_lifetime, ParseLifetime),
      WholeNumberFlag("starting-apiservers", &f.starting_apiservers, 0, 1000),
  };
  VT_ASSIGN_OR_RETURN(SplitCommandLine split, ApplyFlags(args, table));
  f.help = split.help;
  if (f.pod_netns.empty() != f.pod_address.empty()) {
    return InvalidArgument("--pod-netns and --pod-address go together");
  }
  return f;
}

}  // namespace vtenant::op

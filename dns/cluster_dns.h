// The DNS of one cluster, as CoreDNS's kubernetes plugin answers a
// cluster's pods (the Kubernetes DNS-Based Service Discovery
// specification, https://github.com/kubernetes/dns/blob/master/docs/specification.md,
// section 2.3.1: A records of ClusterIP Services):
// `<service>.<namespace>.svc.cluster.local` is the Service's cluster IP, as
// the lookup gives it. Every other name is NXDOMAIN: nothing is forwarded
// upstream, so no query leaves the machine.
//
// Two servers use it. The syncer answers a tenant's pods on the real node
// about its virtual cluster: a Service's address is its host copy's, which
// kube-proxy routes (the virtual Service carries the same, see
// syncer/service_address_syncer.h), and `kubernetes.default.svc.cluster.local`
// is the virtual API server as the pods reach it, never the host's
// `kubernetes` Service whose address the virtual one shares. `vtenant
// cluster-dns` answers the local environment's real node's other pods
// about the host's Services, as CoreDNS would on a real cluster.
//
// Not answered (yet): headless Services' endpoints, SRV records, pod
// records (a-b-c-d.<ns>.pod), PTR; they get an empty answer or NXDOMAIN.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace vtenant::dns {

inline constexpr char kClusterDomain[] = "cluster.local";

// A Service's cluster IP by namespace and name in the cluster answered for:
// nullopt when there is no such Service; "" or "None" for one without a
// cluster IP (headless).
using ServiceAddressLookup =
    std::function<std::optional<std::string>(std::string_view ns, std::string_view name)>;

struct ClusterDnsOptions {
  // What kubernetes.default.svc.cluster.local is (the pods'
  // KUBERNETES_SERVICE_HOST); "": the cluster's `kubernetes` Service like any other.
  std::string kubernetes_address;
  uint32_t ttl_seconds = 5;  // CoreDNS kubernetes plugin's default
};

// The answer to the DNS packet `query`, or "" when none is to be sent (a
// packet too broken to answer, or a response). Pure: `lookup` is asked for
// at most one Service.
std::string AnswerClusterDns(std::string_view query, const ServiceAddressLookup& lookup,
                             const ClusterDnsOptions& options);

// Who asks, as the server knows the address a query came from. A server
// reachable from every pod of a node answers only the pods it is for: the
// syncer a tenant's own, `vtenant cluster-dns` none of any tenant's. The
// names it knows are not another tenant's to list.
enum class Asker {
  kAnswered,  // a pod this server is for
  kRefused,   // a pod it is not for: REFUSED, no record
  kUnknown,   // no pod it knows yet (a pod whose address is not reported
              // yet): no reply, so the resolver asks again after its
              // timeout (glibc's: 5 s), by when the address is known
};
using AskerCheck = std::function<Asker(std::string_view from)>;

// AnswerClusterDns for the query `query` from the address `from`, as
// `check` classes the asker. Pure apart from what `check` and `lookup` do.
std::string AnswerClusterDnsFor(std::string_view query, std::string_view from,
                                const AskerCheck& check, const ServiceAddressLookup& lookup,
                                const ClusterDnsOptions& options);

}  // namespace vtenant::dns

// What the API servers and vtenant's programs say about themselves at
// /metrics, read at the soak's baseline and at its end: /proc shows that a
// program's memory grew, its own metrics show whether the heap in use grew
// with it (a kube-apiserver's Go heap; a vtenant program's malloc heap, an
// upper bound: see kube/process_metrics.h) and which objects it holds
// more of (stored, or cached by its informers).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/rest_client.h"

namespace vtenant::bench {

struct ServerSelf {
  // go_memstats_heap_inuse_bytes of a kube-apiserver;
  // vtenant_malloc_in_use_bytes of a vtenant program.
  double heap_inuse_mib = 0;
  // A kube-apiserver's objects stored, by resource ("pods", "events",
  // "leases.coordination.k8s.io" as the server names them):
  // apiserver_resource_objects, or the older apiserver_storage_objects where
  // a server has only that. A vtenant program's objects cached, by cluster
  // and resource ("primary events", "virtual pods"):
  // vtenant_informer_objects.
  std::map<std::string, int64_t> objects;
  // What else says where a server's memory goes, by the figure's name in
  // the report: "live heap after the last GC, MiB" (what the Go runtime
  // keeps; heap in use also holds garbage not yet collected, up to the
  // heap goal, GOGC's 2x of it), "heap goal, MiB", "goroutines", "heap
  // objects", "long-running requests" (watches, summed over their labels),
  // the watch cache's window in events ("watch cache capacity, events of
  // every resource" and "watch cache capacity, pod events"), "metric
  // series" (lines of samples: the server's own metrics grow a series for
  // each new label combination), and of a vtenant program "malloc free,
  // MiB" (what malloc keeps without giving it back). A figure the server
  // does not serve is absent.
  std::map<std::string, double> gauges;
};

// The figures above from Prometheus text as kube-apiserver or a vtenant
// program serves it; lines it does not know are skipped.
ServerSelf ParseServerMetrics(std::string_view text);

// GET /metrics through `client` (a team's kubeconfig: cluster-admin in its
// virtual cluster may read it), parsed.
Result<ServerSelf> ReadServerSelf(kube::RestClient& client);

// GET http://`address`/metrics (a vtenant program's --health-address),
// parsed.
Result<ServerSelf> ReadServerSelf(const std::string& address);

// The mean over `servers`: heap, objects by resource, and each gauge over
// the servers that serve it.
ServerSelf MeanOf(const std::vector<ServerSelf>& servers);

}  // namespace vtenant::bench

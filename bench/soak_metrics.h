// What the tenants' API servers say about themselves at /metrics, read at
// the soak's baseline and at its end: /proc shows that a kube-apiserver's
// memory grew, its own metrics show whether the Go heap in use grew with
// it and which stored objects it holds more of.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/rest_client.h"

namespace vtenant::bench {

struct ApiServerSelf {
  double heap_inuse_mib = 0;  // go_memstats_heap_inuse_bytes
  // Objects stored, by resource ("pods", "events", "leases.coordination.k8s.io"
  // as the server names them): apiserver_resource_objects, or the older
  // apiserver_storage_objects where a server has only that.
  std::map<std::string, int64_t> objects;
  // What else says where a server's memory goes, by the figure's name in
  // the report: "live heap after the last GC, MiB" (what the Go runtime
  // keeps; heap in use also holds garbage not yet collected, up to the
  // heap goal, GOGC's 2x of it), "heap goal, MiB", "goroutines", "heap
  // objects", "long-running requests" (watches, summed over their labels)
  // and "metric series" (lines of samples: the server's own metrics grow a
  // series for each new label combination). A figure the server does not
  // serve is absent.
  std::map<std::string, double> gauges;
};

// The figures above from Prometheus text as kube-apiserver serves it;
// lines it does not know are skipped.
ApiServerSelf ParseApiServerMetrics(std::string_view text);

// GET /metrics through `client` (a team's kubeconfig: cluster-admin in its
// virtual cluster may read it), parsed.
Result<ApiServerSelf> ReadApiServerSelf(kube::RestClient& client);

// The mean over `servers`: heap, objects by resource, and each gauge over
// the servers that serve it.
ApiServerSelf MeanOf(const std::vector<ApiServerSelf>& servers);

}  // namespace vtenant::bench

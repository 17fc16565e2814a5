// The process's own figures on /metrics.
//
// Under the names Prometheus' client libraries give them, so dashboards and
// alerts written for any exporter's process_* work on vtenant's programs:
//   process_cpu_seconds_total        user and system CPU time
//   process_resident_memory_bytes    resident set size
//   process_virtual_memory_bytes     virtual memory size
//   process_open_fds, process_max_fds
//   process_start_time_seconds       since the Unix epoch
// and the C heap's, which stand where a Go program's go_memstats_* do and
// tell a leak (in use grows) from memory malloc keeps (free grows):
//   vtenant_malloc_in_use_bytes      what the program holds from malloc
//   vtenant_malloc_free_bytes        what malloc holds free, not given back
// Read from /proc/self and glibc's mallinfo2 at every scrape.
#pragma once

#include "base/status.h"
#include "kube/metrics.h"

namespace vtenant::kube {

// Registers the figures above on `registry` with a collector that reads
// them at each Render. Calling it again (another component, a second
// Manager on the same registry) changes nothing.
Status RegisterProcessMetrics(Registry& registry);

}  // namespace vtenant::kube

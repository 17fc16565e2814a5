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
// tell memory the program holds from memory malloc keeps free:
//   vtenant_malloc_in_use_bytes      what malloc counts as in use
//   vtenant_malloc_free_bytes        what malloc holds free, not given back
// Read from /proc/self and glibc's mallinfo2 at every scrape. "In use" is
// an upper bound: it also counts the freed chunks each thread keeps for
// reuse (glibc's tcache, up to 7 of each size to 1 KiB, about 230 KiB a
// thread), so it creeps up as a program's threads come to use more sizes.
// Only a heap profiler (heaptrack) tells that from a leak.
#pragma once

#include "base/status.h"
#include "kube/metrics.h"

namespace vtenant::kube {

// Registers the figures above on `registry` with a collector that reads
// them at each Render. Calling it again (another component, a second
// Manager on the same registry) changes nothing.
Status RegisterProcessMetrics(Registry& registry);

}  // namespace vtenant::kube

// Printing the host's nodes with their GPUs, for `up` and `status`.
#pragma once

#include <ostream>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::cli {

// Lists nodes as a table: NODE READY GPUS PRODUCT GPU-MiB CPU MEMORY (GPUS
// from status.capacity, 0 when absent; PRODUCT and GPU-MiB from the GPU
// feature discovery labels, "-" when absent). Errors only when the nodes
// cannot be listed.
Status PrintNodes(kube::Client& client, std::ostream& out);

// Waits up to `seconds` for every node to report Ready, listing them every
// 200ms (a failed list is tried again); returns how many were Ready at the
// last list that worked (0 when none did). With no nodes at all it returns
// 0 at once.
int WaitForReadyNodes(kube::Client& client, int seconds);

}  // namespace vtenant::cli

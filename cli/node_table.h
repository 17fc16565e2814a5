// Printing the host's nodes with their GPUs, for `up` and `status`.
#pragma once

#include <ostream>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::cli {

// Lists nodes as a table: NAME READY GPUS PRODUCT GPU-MEMORY(MiB) CPU MEMORY.
Status PrintNodes(kube::Client& client, std::ostream& out);

// Waits up to `seconds` for every node to report Ready; returns how many are.
int WaitForReadyNodes(kube::Client& client, int seconds);

}  // namespace vtenant::cli

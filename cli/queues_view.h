// `vtenant queues`: the KAI queue tree with each queue's GPU share.
#pragma once

#include <ostream>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::cli {

// Prints the queues (scheduling.run.ai/v2) as a tree, children under their
// spec.parentQueue, sorted by name, with GPU columns in KAI's units written
// as quantities (0.33 GPU is 330m): QUOTA, LIMIT and WEIGHT from
// spec.resources.gpu (-1 is "unlimited"), FAIR-SHARE from the scheduler's
// annotation vtenant.io/gpu-fair-share, ALLOCATED and REQUESTED from
// status.allocated / status.requested["nvidia.com/gpu"]. A value not
// reported yet prints "-". A queue whose parent does not exist is shown at
// the top with "(parent X missing)". Errors only when queues cannot be
// listed.
Status PrintQueues(kube::Client& client, std::ostream& out);

}  // namespace vtenant::cli

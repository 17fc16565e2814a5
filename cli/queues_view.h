// `vtenant queues`: the KAI queue tree with each queue's GPU share.
#pragma once

#include <ostream>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::cli {

// Prints the queues (scheduling.run.ai/v2) as a tree, children under their
// spec.parentQueue, sorted by name, with GPU columns in KAI's units written
// as quantities (0.33 GPU is 330m): QUEUE, then GPU-QUOTA, LIMIT and
// WEIGHT from spec.resources.gpu (a negative value is "unlimited"),
// FAIR-SHARE from the scheduler's annotation vtenant.io/gpu-fair-share,
// ALLOCATED and REQUESTED from status.allocated / status.requested
// ["nvidia.com/gpu"]. A value not reported yet prints "-"; reported text
// that is not a quantity prints as is. A queue whose parent does not exist
// is shown at the top with "(parent X missing)". Queues in a parentQueue
// cycle are shown once each: the first of the cycle by name at the top,
// with "(in a parentQueue cycle)", the rest of the cycle under it as
// children. No queues print "No queues.". Errors only when queues cannot be listed: NotFound,
// saying so, when the Queue API is not installed.
Status PrintQueues(kube::Client& client, std::ostream& out);

}  // namespace vtenant::cli

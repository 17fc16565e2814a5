// `vtenant tenants`: every Tenant with its phase, queue and endpoint, and
// for a tenant that is not healthy the conditions that say why.
#pragma once

#include <ostream>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::cli {

// Prints a table NAME PHASE QUEUE PARENT GPU-ALLOCATED ENDPOINT, one row
// per Tenant (sorted by name), then under "Conditions:" one indented line
// per problem condition of any tenant (ParentQueueMissing or
// QuotaOvercommitted True, any other condition not True; Ready=False is
// left out when the phase says Ready anyway):
//   nlp: ParentQueueMissing (ParentQueueNotFound): parent queue ml-org does not exist; ...
//   ml: Ready=False (InvalidSpec): spec.queue.resources.gpu: quota 2 exceeds limit 1
// A tenant without status yet shows phase Pending, one being deleted
// Terminating; no Tenants print how to create one. Errors only when the
// Tenants cannot be listed (NotFound, saying so, when the CRD is not
// installed).
Status PrintTenants(kube::Client& client, std::ostream& out);

}  // namespace vtenant::cli

// `vtenant tenants`: every Tenant with its phase, queue and endpoint, and
// for a tenant that is not healthy the conditions that say why.
#pragma once

#include <ostream>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::cli {

// Prints a table NAME PHASE QUEUE PARENT GPU-ALLOCATED ENDPOINT, one row
// per Tenant (sorted by name), then for each tenant not Ready, or with a
// problem condition (a readiness condition not True, ParentQueueMissing or
// QuotaOvercommitted True), one indented line per such condition:
//   nlp: ParentQueueMissing (QueueNotFound): queue "ml-org" does not exist
// A tenant without status yet shows phase Pending. Errors only when the
// Tenants cannot be listed (e.g. the CRD is not installed: said so).
Status PrintTenants(kube::Client& client, std::ostream& out);

}  // namespace vtenant::cli

// DeleteDeviceClaimCopies: the host copies of a tenant's ResourceClaims and
// ResourceClaimTemplates go once its Tenant lists no device classes.
//
// The syncer copies claims only while the Tenant lists classes
// (device_claim_translator.h), and watches them only then. A Tenant that
// stops listing them would otherwise leave the copies made before on the
// host for good, each one a claim on the host's devices charged to the
// tenant's queue. So a syncer started without classes deletes them once.
// A copy still reserved for a running host pod is kept by the API server
// (the claim's delete-protection finalizer) until the pod is done, so no
// running pod loses its devices; new pods that name claims are refused
// (pod_policy.h, ResourceClaimsNotAllowed).
#pragma once

#include <string_view>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::syncer {

// Deletes, in `host_namespace`, every ResourceClaim and
// ResourceClaimTemplate that vtenant-syncer made for `tenant` (its
// managed-by and tenant labels) and that records a virtual object
// (host_identity.h): nothing else the namespace holds is touched. Adds the
// number deleted to `*deleted`. OK too when the host does not serve
// resource.k8s.io/v1 (it then has none); else the first failed call's
// error, after which a second call finishes the work.
Status DeleteDeviceClaimCopies(kube::Client& host, std::string_view host_namespace,
                               std::string_view tenant, int* deleted);

}  // namespace vtenant::syncer

// `vtenant kubeconfig <tenant>`: a team's kubeconfig for its virtual cluster.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::cli {

// The kubeconfig the operator stored for `tenant`: key `config` of the
// Secret named by status.kubeconfigSecret (default vc-<tenant>) in
// status.hostNamespace (default vtenant-<tenant>) on the host.
//   NotFound: no such Tenant; the message lists the tenants that exist.
//   FailedPrecondition: the Tenant exists but its Secret (or its key) does
//     not yet; the message gives the tenant's phase and what to wait for.
//   Internal: the key is not base64. Other errors of the reads, with
//     context.
Result<std::string> TenantKubeconfig(kube::Client& host, std::string_view tenant);

}  // namespace vtenant::cli

// `vtenant rotate-credentials <tenant>`: revoke a team's kubeconfig and have
// the operator issue a new one.
//
// The team's credential is a client certificate signed by a CA of its own
// (operator/certificates.h); the operator replaces that CA when the Tenant's
// annotation vtenant.io/rotate-credentials takes a new value, and marks the
// kubeconfig Secret vc-<t> with the value it carried out
// (vtenant.io/credentials-rotation). The virtual API server refuses the old
// certificate once it has reloaded its client CAs, within a minute.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::cli {

// Sets the Tenant's rotation annotation to `request` (a merge patch).
// NotFound (naming the tenant) when there is no such Tenant; other errors
// of the patch with context.
Status RequestRotation(kube::Client& host, std::string_view tenant, const std::string& request);

// Waits until the tenant's kubeconfig Secret (status.kubeconfigSecret in
// status.hostNamespace, by default vc-<t> in vtenant-<t>) is marked with
// `request`, asking every `poll` for at most `limit` (the Tenant is read
// again each time, for where its Secret is). Timeout says what the Secret
// shows instead, or why it could not be read.
Status WaitForRotation(kube::Client& host, std::string_view tenant, const std::string& request,
                       std::chrono::milliseconds limit,
                       std::chrono::milliseconds poll = std::chrono::milliseconds(500));

// A new rotation request: the time (RFC 3339) and 32 random bits, so that it
// equals no earlier one unless both match by chance.
std::string NewRotationRequest();

}  // namespace vtenant::cli

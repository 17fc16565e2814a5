// The virtual API server's identity towards kubelets: the operator issues a
// client certificate with this Common Name, signed by the tenant's CA, and
// names it in the API server's --kubelet-client-certificate; the syncer's
// kubelet endpoint (kubelet_server.h) accepts that certificate and no
// other. Header-only, so that the operator shares the name without linking
// the syncer.
#pragma once

namespace vtenant::syncer {

inline constexpr char kKubeletClientUser[] = "vtenant:kubelet-client";

}  // namespace vtenant::syncer

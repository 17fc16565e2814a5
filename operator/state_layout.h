// The layout of the operator's --state-dir, which the process backend owns
// and the local environment's CLI also reads (to count and remove what it
// holds). Header-only, so that the CLI shares the names without linking the
// operator.
//
//   <state-dir>/tenants/<tenant>/   one tenant's control plane: its data,
//                                   credentials and logs
#pragma once

namespace vtenant::op {

inline constexpr char kTenantsFolder[] = "tenants";

}  // namespace vtenant::op

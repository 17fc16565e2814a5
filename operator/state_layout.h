// The layout of the operator's --state-dir, which the process backend owns
// and the local environment's CLI also reads (to count and remove what it
// holds). Header-only, so that the CLI shares the names without linking the
// operator.
//
//   <state-dir>/tenants/<tenant>/   one tenant's control plane: its data,
//                                   credentials and logs
#pragma once

#include <filesystem>

namespace vtenant::op {

// The folder holding every tenant's folder, in the operator's `state_dir`.
inline std::filesystem::path TenantsFolder(const std::filesystem::path& state_dir) {
  return state_dir / "tenants";
}

}  // namespace vtenant::op

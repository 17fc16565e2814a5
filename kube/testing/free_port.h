// PickFreeLoopbackPort for kube's own unit tests (the HTTP servers they
// start), so those tests need nothing from localenv.
#pragma once

#include "base/status.h"

namespace vtenant::kube {

// A loopback TCP port the kernel handed out a moment ago (bind to port 0,
// read it back, close). Another process may take it before the caller binds;
// callers retry on Unavailable.
Result<int> PickFreeLoopbackPort();

}  // namespace vtenant::kube

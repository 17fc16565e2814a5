// Loopback TCP sockets, for the servers vtenant starts on one machine (the
// local environment, a tenant's processes) and the tests that stand in for
// a server.
#pragma once

#include "base/status.h"

namespace vtenant::kube {

// A loopback TCP port the kernel handed out a moment ago (bind to port 0,
// read it back, close). Another process may take it before the caller binds;
// callers retry on Unavailable.
Result<int> PickFreeLoopbackPort();

// A socket listening on 127.0.0.1 at a port the kernel picks, which is
// stored in *port. The caller owns (and closes) the descriptor. With
// `close_on_exec` false, programs this one starts inherit it (what a test of
// inherited descriptors needs).
Result<int> ListenOnLoopback(int* port, bool close_on_exec = true);

}  // namespace vtenant::kube

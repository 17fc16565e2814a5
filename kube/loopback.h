// Loopback TCP sockets, for the servers vtenant starts on one machine (the
// local environment, a tenant's processes) and the tests that stand in for
// a server.
#pragma once

#include <string>
#include <utility>

#include "base/status.h"

namespace vtenant::kube {

// A loopback TCP port that was free a moment ago, for a server that keeps
// it across restarts (a kubeconfig or a Node names it). It lies outside the
// kernel's ephemeral range (net.ipv4.ip_local_port_range), from which every
// outgoing connection takes its local port: a port from there can be held
// by some client's socket when its server restarts, and the server then
// never binds again. One process never hands out the same port of that
// range twice (a port the kernel picks, the fallback below, may repeat).
// Another process may take it before the caller binds; callers retry on
// Unavailable. Only where the ephemeral range leaves no room does the
// kernel pick (bind to port 0).
Result<int> PickFreeLoopbackPort();

// The ports [first, last] that the ephemeral range `range_text`
// ("32768\t60999", as /proc/sys/net/ipv4/ip_local_port_range reads) leaves
// for fixed ports: from 20000 to below it (29999 at most, under
// Kubernetes' NodePorts), or above it when there is no room below; {0, -1}
// when neither has room. Linux's default range when the text is unreadable.
std::pair<int, int> FixedPortRange(const std::string& range_text);

// A socket listening on 127.0.0.1 at a port the kernel picks, which is
// stored in *port. The caller owns (and closes) the descriptor. With
// `close_on_exec` false, programs this one starts inherit it (what a test of
// inherited descriptors needs).
Result<int> ListenOnLoopback(int* port, bool close_on_exec = true);

}  // namespace vtenant::kube

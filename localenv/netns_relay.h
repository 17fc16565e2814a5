// The two relays between the real node's network namespace and the
// machine's loopback, so that the node's programs and the host's API server
// talk without any address outside loopback and the namespace:
//
//   node → API server: a TCP listener inside the namespace (127.0.0.1:<api
//   port> there) whose connections are spliced to the API server's
//   127.0.0.1:<api port> in the namespace the relay runs in. The node's
//   kubeconfigs name the same URL as the admin's, and the API server's
//   certificate (issued for 127.0.0.1) fits.
//
//   API server → kubelet (logs, exec, attach, port-forward): an HTTP
//   CONNECT proxy on a Unix socket, which kube-apiserver's egress selector
//   (EgressSelectorConfiguration, egress "cluster", HTTPConnect over UDS)
//   uses for every connection to a node; it dials the requested address
//   from inside the namespace, where the node IP exists.
//
// Both run until the process is killed; each connection gets a thread.
// ServeInboundRelay, RunInboundRelay and RunConnectProxy ignore SIGPIPE for
// the whole process, so that a peer gone mid-write cannot kill the relay.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"

namespace vtenant::localenv {

// A socket of `type` at the numeric `host`:`port` inside the namespace
// `netns`: SOCK_STREAM listening, SOCK_DGRAM bound. The caller owns it.
// Unavailable when the address is taken or not in the namespace;
// InvalidArgument for a host that is not numeric; NotFound when the
// namespace does not exist.
Result<int> ListenInNetns(const std::string& netns, const std::string& host, int port, int type);

// Accepts connections on `listener` (a listening TCP socket, e.g. from
// ListenInNetns) and relays each, on a thread of its own, to the numeric
// `target_host`:`target_port` as seen from the namespace this process runs
// in. Returns OK once `stopped()` is true (asked at least every half
// second), an error when accepting fails; out of descriptors it waits
// 100 ms and tries again. Each connection is connected to the target on
// its own thread, so a target slow to answer holds up no other; one that
// refuses is logged to stderr and the client's connection closed. Relayed
// connections run on until either end closes them.
Status ServeInboundRelay(int listener, const std::string& target_host, int target_port,
                         const std::function<bool()>& stopped);

// Listens on `listen_host`:`listen_port` inside the namespace `netns` and
// relays each connection to `target_host`:`target_port` as seen from the
// namespace this process runs in. Returns only when listening or accepting
// fails (InvalidArgument for a target that is not a numeric address).
Status RunInboundRelay(const std::string& netns, const std::string& listen_host, int listen_port,
                       const std::string& target_host, int target_port);

// Listens on the Unix socket `socket_path` (replacing a stale one) and
// answers HTTP CONNECT requests by connecting, inside `netns`, to the
// numeric address they name. Returns only when listening or accepting
// fails (NotFound when the namespace does not exist); out of descriptors
// it waits 100 ms and tries again.
Status RunConnectProxy(const std::string& netns, const std::string& socket_path);

}  // namespace vtenant::localenv

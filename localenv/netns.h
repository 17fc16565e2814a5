// Network namespaces that a local environment creates for itself, and
// sockets opened inside them.
//
// The real node (real_node.h) runs in a namespace of its own so that its
// addresses (the node IP, the pod bridge) exist nowhere else: nothing of it
// listens on, or sends to, an address of the machine's own network. The
// only ways in and out are the relays (netns_relay.h), which open their
// sockets inside the namespace and connect to loopback outside it.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace vtenant::localenv {

// /run/netns/<name>, where `ip netns add` pins a named namespace.
std::string NetnsPath(const std::string& name);

// Creates the named namespace (`ip netns add`) unless it exists, and brings
// its loopback up. Needs CAP_SYS_ADMIN (root). NotFound when iproute2's ip
// is not installed; Internal, quoting its stderr, when it fails.
Status EnsureNetns(const std::string& name);

// Deletes the named namespace (`ip netns delete`); OK when there is none.
Status DeleteNetns(const std::string& name);

// Runs `argv` (argv[0] a path, e.g. /usr/sbin/ip) inside the namespace,
// through /usr/bin/nsenter, and waits for it; a non-zero exit is Internal,
// quoting its stderr.
Status RunInNetns(const std::string& name, const std::vector<std::string>& argv);

// A socket (socket(2) `domain`, `type`) created inside the namespace whose
// file is `netns_fd` (an open /run/netns/<name>), by this thread entering
// it and returning to `home_fd` (an open /proc/self/ns/net). The socket
// stays in that namespace for its whole life: binding and connecting it
// later use that namespace's addresses and routes, whatever thread does it.
// Only the calling thread changes namespace, and only for the call. Internal
// when entering, creating or returning fails; a thread that could not
// return is left in the namespace.
Result<int> SocketInNetns(int netns_fd, int home_fd, int domain, int type);

}  // namespace vtenant::localenv

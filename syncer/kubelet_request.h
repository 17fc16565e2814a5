// KubeletRequest: what a virtual API server asks of a kubelet, and the host
// API request that answers it.
//
// A team's `kubectl logs`, `exec`, `attach` and `port-forward` reach its
// virtual API server, which sends them to the kubelet of the pod's node:
// the address and port of a virtual Node, which the syncer points at its
// own kubelet endpoint (kubelet_server.h). The endpoint serves these four
// paths of the kubelet API and nothing else:
//
//   /containerLogs/<ns>/<pod>/<container>?follow=…&tailLines=…
//   /exec/<ns>/<pod>[/<uid>]/<container>?command=…&input=1&output=1&error=1&tty=1
//   /attach/<ns>/<pod>[/<uid>]/<container>?input=1&output=1&error=1&tty=1
//   /portForward/<ns>/<pod>[/<uid>]?port=80,8080
//
// and answers each with the same subresource of the pod's host copy on the
// host API server (pods/log, pods/exec, pods/attach, pods/portforward),
// whose parameter names differ (input → stdin, port → ports). The host
// request is built from what is parsed here, parameter by parameter, from
// an allowlist: nothing of the incoming query is passed on as text.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace vtenant::syncer {

enum class KubeletAction { kContainerLogs, kExec, kAttach, kPortForward };

struct KubeletRequest {
  KubeletAction action = KubeletAction::kContainerLogs;
  std::string pod_namespace;  // virtual
  std::string pod;            // virtual
  std::string container;      // "" for port forwarding
  // The host API's query parameters, decoded, in order (command repeats).
  std::vector<std::pair<std::string, std::string>> host_query;
};

// Parses the request target (path and query, as on the request line) of a
// kubelet API request. NotFound for a path this endpoint does not serve;
// InvalidArgument for a namespace, pod or container that is not a valid
// Kubernetes name, or a malformed query (bad percent-encoding, a port that
// is not a number in 1–65535).
Result<KubeletRequest> ParseKubeletRequest(std::string_view target);

// The host API request target for `request` answered by host pod
// `host_name` in `host_namespace`: "/api/v1/namespaces/<ns>/pods/<name>/
// exec?container=…&command=…&stdin=true…", every value percent-encoded.
std::string HostRequestTarget(const KubeletRequest& request, std::string_view host_namespace,
                              std::string_view host_name);

}  // namespace vtenant::syncer

// `vtenant relay`: one of the two relays of the real node (see
// localenv/netns_relay.h), run by the supervisor as a component:
//
//   vtenant relay --netns NAME --listen 127.0.0.1:6443 --to 127.0.0.1:6443
//   vtenant relay --netns NAME --connect-proxy /path/egress.sock
#include <iostream>

#include "base/flags.h"
#include "base/host_port.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "localenv/netns_relay.h"

namespace vtenant::cli {

int RunRelay(const GlobalOptions&, const std::vector<std::string>& args) {
  const std::string usage =
      "usage: vtenant relay --netns NAME (--listen HOST:PORT --to HOST:PORT |"
      " --connect-proxy SOCKET)\n";
  std::string netns, listen, to, proxy_socket;
  SplitCommandLine split;
  if (int code = ReadFlags("vtenant relay", args,
                           {TextFlag("netns", &netns), TextFlag("listen", &listen),
                            TextFlag("to", &to), TextFlag("connect-proxy", &proxy_socket)},
                           Words::kRefuse, usage, split);
      code >= 0) {
    return code;
  }
  Status result;
  if (!netns.empty() && !proxy_socket.empty() && listen.empty() && to.empty()) {
    result = localenv::RunConnectProxy(netns, proxy_socket);
  } else {
    Result<HostPort> from = ParseAddressFlag("listen", listen);
    Result<HostPort> target = ParseHostPort(to);
    if (netns.empty() || !from.ok() || !target.ok()) {
      std::cerr << usage;
      return 2;
    }
    result = localenv::RunInboundRelay(netns, from->host, from->port, target->host, target->port);
  }
  std::cerr << "vtenant relay: " << result.ToString() << "\n";
  return 1;
}

}  // namespace vtenant::cli

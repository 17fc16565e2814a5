// `vtenant relay`: one of the two relays of the real node (see
// localenv/netns_relay.h), run by the supervisor as a component:
//
//   vtenant relay --netns NAME --listen 127.0.0.1:6443 --to 127.0.0.1:6443
//   vtenant relay --netns NAME --connect-proxy /path/egress.sock
#include <iostream>
#include <map>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "localenv/netns_relay.h"

namespace vtenant::cli {

namespace {

// "127.0.0.1:6443" → host, port. False when it is not host:port.
bool SplitHostPort(const std::string& text, std::string& host, int& port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 == text.size() || text.size() - colon > 6) {
    return false;
  }
  const std::string port_text = text.substr(colon + 1);
  if (port_text.find_first_not_of("0123456789") != std::string::npos) return false;
  host = text.substr(0, colon);
  port = std::stoi(port_text);
  return port > 0 && port < 65536;
}

}  // namespace

int RunRelay(const GlobalOptions&, const std::vector<std::string>& args) {
  const std::string usage =
      "usage: vtenant relay --netns NAME (--listen HOST:PORT --to HOST:PORT |"
      " --connect-proxy SOCKET)\n";
  std::string netns, listen, to, proxy_socket;
  const std::map<std::string, std::string*> values = {
      {"netns", &netns}, {"listen", &listen}, {"to", &to}, {"connect-proxy", &proxy_socket}};
  std::vector<FlagSpec> known;
  for (const auto& [name, value] : values) known.push_back({.name = name});
  SplitCommandLine split;
  if (int code = ReadFlags("vtenant relay", args, known, Words::kRefuse, usage, split); code >= 0) {
    return code;
  }
  for (const FlagValue& given : split.flags) *values.at(given.name) = given.value;
  Status result;
  if (!netns.empty() && !proxy_socket.empty() && listen.empty() && to.empty()) {
    result = localenv::RunConnectProxy(netns, proxy_socket);
  } else {
    std::string listen_host, to_host;
    int listen_port = 0, to_port = 0;
    if (netns.empty() || !SplitHostPort(listen, listen_host, listen_port) ||
        !SplitHostPort(to, to_host, to_port)) {
      std::cerr << usage;
      return 2;
    }
    result = localenv::RunInboundRelay(netns, listen_host, listen_port, to_host, to_port);
  }
  std::cerr << "vtenant relay: " << result.ToString() << "\n";
  return 1;
}

}  // namespace vtenant::cli

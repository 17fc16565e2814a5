#include "kube/rest_config.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace vtenant::kube {

std::string ServerAddress::Authority() const {
  const std::string bracketed = host.find(':') == std::string::npos ? host : "[" + host + "]";
  return bracketed + ":" + std::to_string(port);
}

Result<ServerAddress> ParseServerUrl(std::string_view url) {
  auto refuse = [&](const std::string& why) {
    return InvalidArgument("server URL \"" + std::string(url) + "\": " + why);
  };
  constexpr std::string_view kScheme = "https://";
  if (url.substr(0, kScheme.size()) != kScheme) return refuse("not an https:// URL");
  std::string_view rest = url.substr(kScheme.size());
  rest = rest.substr(0, rest.find('/'));
  ServerAddress address;
  std::string_view port_text;
  bool has_port = false;
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return refuse("an unterminated IPv6 address");
    address.host = std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
    if (!rest.empty() && rest.front() != ':') return refuse("text after the IPv6 address");
    has_port = !rest.empty();
    if (has_port) port_text = rest.substr(1);
  } else {
    const size_t colon = rest.find(':');
    address.host = std::string(rest.substr(0, colon));
    has_port = colon != std::string_view::npos;
    if (has_port) port_text = rest.substr(colon + 1);
  }
  if (address.host.empty()) return refuse("no host");
  if (has_port) {
    if (port_text.empty() || port_text.size() > 5 ||
        port_text.find_first_not_of("0123456789") != std::string_view::npos) {
      return refuse("a malformed port");
    }
    address.port = std::stoi(std::string(port_text));
    if (address.port < 1 || address.port > 65535) return refuse("a port out of range");
  }
  return address;
}

Result<std::string> BearerToken(const RestConfig& config) {
  if (!config.bearer_token.empty() || config.bearer_token_file.empty()) {
    return config.bearer_token;
  }
  const std::string& path = config.bearer_token_file;
  std::ifstream in(path);
  if (!in) {
    return Status(StatusCode::kUnauthorized,
                  "cannot read bearer token file " + path + ": " + std::strerror(errno));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string token = ss.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  if (token.empty()) {
    return Status(StatusCode::kUnauthorized, "bearer token file " + path + " is empty");
  }
  return token;
}

}  // namespace vtenant::kube
